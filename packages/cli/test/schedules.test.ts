// Schedules through the bundled bin on PostgreSQL with two server instances: a schedule every two
// seconds posts into a Telegram chat (the Telegram fake) exactly once per tick although both
// instances run it; `agentsvc schedules list --json | pause | resume | run` on the shared store.
import { openPostgresChatDb } from "@agentsvc/chat-store";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { type ProjectServer, startProjectServer } from "@agentsvc/server/testing";
import { TelegramFake } from "@agentsvc/testkit";
import { eventually } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkPackages, run, tempDir, writeFiles } from "./helpers.js";

interface Listed {
  name: string;
  state: string;
  nextRun: string | null;
  lastRun: string | null;
  lastOutcome: string | null;
  lastError: string | null;
}

describe.skipIf(postgresMissing)(
  "a schedule on two instances over PostgreSQL, and agentsvc schedules",
  () => {
    let pgServer: TestPostgres;
    let env: Record<string, string>;
    let root: string;
    let telegram: TelegramFake;
    let a: ProjectServer;
    let b: ProjectServer;

    const cli = (...args: string[]) => run(["schedules", ...args, "--dir", root], { env });
    const list = async (): Promise<Listed[]> => {
      const r = await cli("list", "--json");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as Listed[];
    };
    /** Ticks of the schedule in the shared store, oldest first. */
    const ticks = async () => {
      const db = await openPostgresChatDb({
        name: "main",
        datasource: { type: "postgres", urlEnvVar: "DATABASE_URL", pool: 2 },
        appRoot: root,
        env,
      });
      try {
        return (await db.scheduleTicks.recent("digest", 500)).reverse();
      } finally {
        await db.close();
      }
    };
    const messages = () => telegram.chat.botMessages.filter((m) => m.chatId === 4242);

    beforeAll(async () => {
      pgServer = await startPostgres();
      telegram = await TelegramFake.start();
      env = { TG_TOKEN: telegram.token, DATABASE_URL: await pgServer.createDatabase() };
      root = tempDir("agentsvc-schedules-");
      writeFiles(root, {
        "package.json": JSON.stringify({ name: "schedules-fixture", private: true, type: "module" }),
        "agents/bot.mjs": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "bot", model: { provider: "demo", script: [{ text: "Digest ready." }] }, memory: { type: "window" } });\n`,
        "agentsvc.config.yaml":
          "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\nstore: main\n",
        "gateways/telegram.yaml": "type: telegram\nbotTokenEnvVar: TG_TOKEN\n",
        "schedules/digest.yaml":
          "cron: '*/2 * * * * *'\nprompt: Write the digest\nto: { gateway: telegram, thread: 4242 }\n",
      });
      linkPackages(root, {
        "@agentsvc/agent-core": "packages/agent-core",
        "@agentsvc/gateway-telegram": "packages/gateway-telegram",
      });
      const patchGateway = (entry: object) => ({ ...entry, apiBaseUrl: telegram.url }) as never;
      a = await startProjectServer(root, { env, patchGateway });
      b = await startProjectServer(root, { env, patchGateway });
    }, 90_000);

    afterAll(async () => {
      await b?.close();
      await a?.close();
      await telegram?.close();
      await pgServer?.stop();
    });

    it("every tick is claimed once and its reply sent once, with both instances running the schedule", async () => {
      await eventually(
        async () => (await ticks()).filter((t) => t.outcome === "delivered").length >= 3,
        "three delivered ticks",
        30_000,
      );
      const before = await ticks();
      const delivered = before.filter((t) => t.outcome === "delivered").length;
      // One message per delivered tick: none doubled by the second instance.
      await eventually(() => messages().length >= delivered, "the delivered ticks' messages", 10_000);
      const stillOpen = before.filter((t) => t.outcome === "claimed" || t.outcome === "recorded").length;
      expect(messages().length).toBeGreaterThanOrEqual(delivered);
      expect(messages().length).toBeLessThanOrEqual(delivered + stillOpen);
      expect(new Set(before.map((t) => t.tickAt)).size).toBe(before.length);
    });

    it("schedules list shows the next run and the last outcome; pause stops the ticks on both instances; run queues one", async () => {
      const [row] = await list();
      expect(row).toMatchObject({ name: "digest", state: "enabled", lastError: null });
      expect(Date.parse(row!.nextRun!)).toBeGreaterThan(Date.now() - 2_000);
      expect(["delivered", "recorded", "claimed"]).toContain(row!.lastOutcome);

      const paused = await cli("pause", "digest");
      expect(paused.code).toBe(0);
      expect((await list())[0]).toMatchObject({ state: "paused", nextRun: null });
      // A pass later nothing new is claimed: wait out two tick periods.
      await new Promise((r) => setTimeout(r, 1_500));
      const atPause = (await ticks()).length;
      await new Promise((r) => setTimeout(r, 4_500));
      expect((await ticks()).length).toBe(atPause);

      const ran = await cli("run", "digest");
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/queued a run of digest/);
      await eventually(
        async () => (await ticks()).some((t) => t.manual && t.outcome === "delivered"),
        "the manual run delivered",
        15_000,
      );

      expect((await cli("resume", "digest")).code).toBe(0);
      expect((await list())[0]!.state).toBe("enabled");
      const unknown = await cli("run", "nightly");
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no schedule "nightly" under schedules/ (found: digest)');
    });
  },
);
