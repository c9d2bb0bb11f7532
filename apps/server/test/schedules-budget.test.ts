// Scheduled turns and the spend meter (#40) through the composed server: a tick's model call is a
// `scheduled` row of the cost ledger, counted against the target gateway's budget like any turn of
// that chat; once the budget is spent the next tick's turn is refused, visibly (the tick fails with
// the refusal as its error, and the chat gets the budget notice instead of an answer).
import { eventually, FakeOpenAI, OPENAI_TEST_KEY, TelegramFake } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "./project-server.js";

let project: ProjectServer;
let telegram: TelegramFake;
let model: FakeOpenAI;

beforeAll(async () => {
  telegram = await TelegramFake.start();
  // The OpenAI fake reports usage (input from the request's size, output per delta); the demo model reports none.
  model = await FakeOpenAI.start({ fallback: { text: ["Good morning: ", "3 open issues."] } });
  project = await startProjectServer("schedules-budget", {
    files: {
      "agents/ops.mjs": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(model.baseURL)} } });\n`,
      "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TG_TOKEN\napiBaseUrl: ${telegram.url}\n`,
      "schedules/digest.yaml":
        "cron: '*/2 * * * * *'\nprompt: Write the morning digest\nto: { gateway: telegram, thread: 4242 }\n",
      // A dollar a token: the first scheduled call spends the telegram entry's one-dollar day at once.
      "agentsvc.config.yaml": [
        "prices:",
        '  "openai/gpt-4o-mini": { input: 1000000, output: 1000000 }',
        "budgets:",
        "  gateways:",
        "    telegram: { day: { cost: 1 } }",
        "",
      ].join("\n"),
    },
    env: { TG_TOKEN: telegram.token, OPENAI_API_KEY: OPENAI_TEST_KEY },
    adapters: ["gateway-telegram"],
  });
});

afterAll(async () => {
  await project?.close();
  await telegram?.close();
  await model?.close();
});

describe("scheduled turns and budgets", () => {
  it("a tick's call is a scheduled ledger row of its gateway; once the budget is spent the next tick fails visibly", async () => {
    const db = project.openStore();
    try {
      await eventually(
        async () => (await db.scheduleTicks.recent("digest")).some((t) => t.outcome === "failed"),
        "a tick refused by the budget",
        30_000,
      );
      const ticks = (await db.scheduleTicks.recent("digest")).reverse();
      const first = ticks.findIndex((t) => t.outcome === "delivered");
      expect(first).toBe(0);
      const refused = ticks.find((t) => t.outcome === "failed");
      expect(refused?.error).toContain("budget");
      const spent = await db.usageLedger.totals({ since: 0, gateway: "telegram" });
      expect(spent.calls).toBe(1);
      expect(spent.costNanos).toBeGreaterThan(1_000_000_000);
      const texts = telegram.chat.botMessages.filter((m) => m.chatId === 4242).map((m) => m.text);
      expect(texts[0]).toBe("Good morning: 3 open issues.");
      expect(texts.slice(1).every((t) => t.includes("used up its AI budget"))).toBe(true);
    } finally {
      db.close();
    }
  });
});
