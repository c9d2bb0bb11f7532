// A chat page entry whose `database` names a PostgreSQL datasource, through two processes of the
// built bin over one server (tooling/pg-test): the accounts are seeded there, a sign-in on one
// instance is accepted by the other, and a conversation started on one is listed and replayed on
// the other.
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import { connectPostgres } from "@agentsvc/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

describe.skipIf(postgresMissing)(
  "agentsvc start: a chat page on a postgres datasource, two instances",
  () => {
    let pg: TestPostgres;
    let url: string;
    let a: Served;
    let b: Served;

    beforeAll(async () => {
      pg = await startPostgres();
      url = await pg.createDatabase();
      const dir = writeFiles(tempDir("agentsvc-page-pg-"), {
        "agents/bot.mjs": BOT_AGENT,
        "agentsvc.config.yaml":
          "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\nstore: main\n",
        "gateways/web.yaml": [
          "exposes: webui",
          "path: /chat",
          "database: { datasource: main }",
          "users:",
          "  - username: ada",
          "    displayName: Ada L.",
          "    passwordEnvVar: ADA_PASSWORD",
          "",
        ].join("\n"),
      });
      const env = { DATABASE_URL: url, ADA_PASSWORD: "ada-pw" };
      a = await serveBin(["start", dir, "--port", "0"], env);
      b = await serveBin(["start", dir, "--port", "0"], env);
    }, 90_000);
    afterAll(async () => {
      await b?.stop();
      await a?.stop();
      await pg?.stop();
    });

    it("seeds the account in PostgreSQL; a sign-in and a conversation on one instance are the other's too", async () => {
      const login = await fetch(`${a.url}/chat/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "ada", password: "ada-pw" }),
      });
      expect(login.status).toBe(200);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const turn = await fetch(`${a.url}/chat/api/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ input: "shared across instances", conversationId: "shared" }),
        signal: AbortSignal.timeout(15_000),
      });
      expect(turn.status).toBe(200);

      const me = await fetch(`${b.url}/chat/api/auth/me`, { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { user: { username: string } }).user.username).toBe("ada");
      const history = await fetch(`${b.url}/chat/api/history?conversationId=shared`, { headers: { cookie } });
      const messages = ((await history.json()) as { messages: { role: string; content: string }[] }).messages;
      expect(messages.map((m) => `${m.role}: ${m.content}`)[0]).toBe("user: shared across instances");
      expect(messages).toHaveLength(2);

      const store = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
      try {
        const { rows } = await store.pool.query<{ username: string; display_name: string; active: boolean }>(
          "SELECT username, display_name, active FROM accounts",
        );
        expect(rows).toEqual([{ username: "ada", display_name: "Ada L.", active: true }]);
      } finally {
        await store.close();
      }
    }, 60_000);
  },
);
