// Schedules through the composed server: a schedule in schedules/ posts the agent's reply into its
// Telegram chat through the gateway's outbox (the Telegram fake), and a target Telegram refuses
// (https://core.telegram.org/bots/api#making-requests: ok false, 400 "Bad Request: chat not found")
// ends as a dead tick counted on /metrics, never silently. The adapter is linked as an installed app has it.
import { eventually, TelegramFake } from "@agentsvc/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "./project-server.js";

let project: ProjectServer;
let telegram: TelegramFake;

beforeAll(async () => {
  telegram = await TelegramFake.start();
  // The first reply of the schedule is refused as Telegram refuses a chat the bot cannot reach.
  telegram.failNext("sendMessage", { status: 400, description: "Bad Request: chat not found" });
  project = await startProjectServer("schedules", {
    files: {
      "agents/ops.mjs": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "demo", script: [{ text: "Good morning: 3 open issues." }] } });\n`,
      "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TG_TOKEN\napiBaseUrl: ${telegram.url}\n`,
      // Every two seconds (a six-field pattern), so the test sees two ticks quickly.
      "schedules/digest.yaml":
        "cron: '*/2 * * * * *'\nprompt: Write the morning digest\nto: { gateway: telegram, thread: 4242 }\n",
      "agentsvc.config.yaml": "metrics:\n  path: /metrics\n",
    },
    env: { TG_TOKEN: telegram.token },
    adapters: ["gateway-telegram"],
  });
});

afterAll(async () => {
  await project?.close();
  await telegram?.close();
});

async function runs(outcome: string): Promise<number> {
  const text = await (await fetch(`${project.server.url}/metrics`)).text();
  const sample = parsePrometheusTextFormat(text)
    .filter((f) => f.name === "agentsvc_schedule_runs_total")
    .flatMap((f) => f.metrics)
    .find((m) => m.labels?.schedule === "digest" && m.labels?.outcome === outcome);
  return sample === undefined ? 0 : Number(sample.value);
}

describe("a schedule in a project", () => {
  it("a refused reply is a dead tick (metric and last error); the next tick's reply reaches the chat once", async () => {
    await eventually(async () => (await runs("dead")) === 1, "the first tick counted dead", 20_000);
    await eventually(async () => (await runs("delivered")) >= 1, "a later tick delivered", 20_000);
    const sent = telegram.chat.botMessages.filter((m) => m.chatId === 4242);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent[0]!.text).toBe("Good morning: 3 open issues.");
    // Every recorded tick of the schedule has at most one reply piece sent.
    const db = project.openStore();
    try {
      expect(await db.scheduleTicks.lastError("digest")).toMatchObject({
        outcome: "dead",
        error: expect.stringContaining("chat not found"),
      });
    } finally {
      db.close();
    }
  });
});
