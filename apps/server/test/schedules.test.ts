// Schedules through the composed server: a schedule in schedules/ posts the agent's reply into its
// Telegram chat through the gateway's outbox (the Telegram fake), and a target Telegram refuses
// (https://core.telegram.org/bots/api#making-requests: ok false, 400 "Bad Request: chat not found")
// ends as a dead tick counted on /metrics, never silently. The adapter is linked as an installed app has it.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { loadProject } from "@agentsvc/config-schema";
import { eventually, TelegramFake } from "@agentsvc/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

let root: string;
let server: RunningServer;
let telegram: TelegramFake;

beforeAll(async () => {
  telegram = await TelegramFake.start();
  // The first reply of the schedule is refused as Telegram refuses a chat the bot cannot reach.
  telegram.failNext("sendMessage", { status: 400, description: "Bad Request: chat not found" });
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.schedules-"));
  for (const d of ["agents", "gateways", "schedules", "node_modules/@agentsvc"])
    mkdirSync(join(root, d), { recursive: true });
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-telegram"),
    join(root, "node_modules/@agentsvc/gateway-telegram"),
    "dir",
  );
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "schedules-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "demo", script: [{ text: "Good morning: 3 open issues." }] } });\n`,
  );
  writeFileSync(
    join(root, "gateways/telegram.yaml"),
    `type: telegram\nbotTokenEnvVar: TG_TOKEN\napiBaseUrl: ${telegram.url}\n`,
  );
  // Every two seconds (a six-field pattern), so the test sees two ticks quickly.
  writeFileSync(
    join(root, "schedules/digest.yaml"),
    "cron: '*/2 * * * * *'\nprompt: Write the morning digest\nto: { gateway: telegram, thread: 4242 }\n",
  );
  writeFileSync(join(root, "agentsvc.config.yaml"), "metrics:\n  path: /metrics\n");
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env: { TG_TOKEN: telegram.token },
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-schedules-build-")),
    interactive: false,
  });
});

afterAll(async () => {
  await server?.shutdown();
  await telegram?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function runs(outcome: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
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
    const db = ChatDb.open({ appRoot: root, path: "data/agentsvc.db" });
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
