// Scheduled turns and the spend meter (#40) through the composed server: a tick's model call is a
// `scheduled` row of the cost ledger, counted against the target gateway's budget like any turn of
// that chat; once the budget is spent the next tick's turn is refused, visibly (the tick fails with
// the refusal as its error, and the chat gets the budget notice instead of an answer).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { loadProject } from "@agentsvc/config-schema";
import { eventually, FakeOpenAI, OPENAI_TEST_KEY, TelegramFake } from "@agentsvc/testkit";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

let root: string;
let server: RunningServer;
let telegram: TelegramFake;
let model: FakeOpenAI;

beforeAll(async () => {
  telegram = await TelegramFake.start();
  // The OpenAI fake reports usage (input from the request's size, output per delta); the demo model reports none.
  model = await FakeOpenAI.start({ fallback: { text: ["Good morning: ", "3 open issues."] } });
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.schedules-budget-"));
  for (const d of ["agents", "gateways", "schedules", "node_modules/@agentsvc"])
    mkdirSync(join(root, d), { recursive: true });
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-telegram"),
    join(root, "node_modules/@agentsvc/gateway-telegram"),
    "dir",
  );
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "budget-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "ops", model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(model.baseURL)} } });\n`,
  );
  writeFileSync(
    join(root, "gateways/telegram.yaml"),
    `type: telegram\nbotTokenEnvVar: TG_TOKEN\napiBaseUrl: ${telegram.url}\n`,
  );
  writeFileSync(
    join(root, "schedules/digest.yaml"),
    "cron: '*/2 * * * * *'\nprompt: Write the morning digest\nto: { gateway: telegram, thread: 4242 }\n",
  );
  // A dollar a token: the first scheduled call spends the telegram entry's one-dollar day at once.
  writeFileSync(
    join(root, "agentsvc.config.yaml"),
    [
      "prices:",
      '  "openai/gpt-4o-mini": { input: 1000000, output: 1000000 }',
      "budgets:",
      "  gateways:",
      "    telegram: { day: { cost: 1 } }",
      "",
    ].join("\n"),
  );
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env: { TG_TOKEN: telegram.token, OPENAI_API_KEY: OPENAI_TEST_KEY },
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-schedules-build-")),
    interactive: false,
  });
});

afterAll(async () => {
  await server?.shutdown();
  await telegram?.close();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("scheduled turns and budgets", () => {
  it("a tick's call is a scheduled ledger row of its gateway; once the budget is spent the next tick fails visibly", async () => {
    const db = ChatDb.open({ appRoot: root, path: "data/agentsvc.db" });
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
