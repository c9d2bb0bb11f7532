// connectPostgres against a real PostgreSQL (tooling/pg-test's throwaway server): the express lane,
// connecting without migrating, the start-up log line of a schema change, close twice, the warn
// line of an idle connection lost, and a schema that cannot be read.
import { once } from "node:events";
import { postgresMissing } from "@agentsvc/pg-test";
import { describe, expect, it } from "vitest";
import { connectPostgres } from "../src/connect.js";
import { MIGRATIONS } from "../src/migrations.js";
import { connect, expectStoreError, query, usePostgres } from "./helpers.js";

const last = MIGRATIONS.at(-1)?.version ?? 0;

describe.skipIf(postgresMissing)("connectPostgres against a real PostgreSQL, at its edges", () => {
  const pg = usePostgres();

  it("keeps one of max connections apart for express when asked and max >= 2, else express is the pool's drizzle", async () => {
    const url = await pg.server().createDatabase();
    const two = await connect({ connectionString: url, max: 2, express: true });
    expect(two.pool.options.max).toBe(1);
    expect(two.express).not.toBe(two.db);
    const lane = (two.express as unknown as { $client: { options: { max: number } } }).$client;
    expect(lane.options.max).toBe(1);
    expect((await two.express.execute("SELECT 1 AS n")).rows).toEqual([{ n: 1 }]);
    const one = await connect({ connectionString: url, max: 1, express: true, migrate: false });
    expect(one.pool.options.max).toBe(1);
    expect(one.express).toBe(one.db);
    const plain = await connect({ connectionString: url, max: 3, migrate: false });
    expect(plain.pool.options.max).toBe(3);
    expect(plain.express).toBe(plain.db);
  });

  it("without migrate reads the version and applies nothing; schemaVersion reads the database's", async () => {
    const url = await pg.server().createDatabase();
    const fresh = await connect({ connectionString: url, migrate: false });
    expect(fresh.migration).toEqual({ from: 0, to: 0, applied: [] });
    expect(fresh.datasource).toBe("postgres");
    expect(await fresh.schemaVersion()).toBe(0);
    const migrated = await connect({ connectionString: url });
    expect(await migrated.schemaVersion()).toBe(last);
    const again = await connect({ connectionString: url, migrate: false });
    expect(again.migration).toEqual({ from: last, to: last, applied: [] });
  });

  it("logs one line when a start creates or migrates the schema (naming the datasource), none when nothing changed", async () => {
    const url = await pg.server().createDatabase();
    const lines: { obj: object; msg: string }[] = [];
    const logger = { info: (obj: object, msg: string) => lines.push({ obj, msg }) };
    const first = MIGRATIONS.slice(0, -2);
    const from = first.at(-1)?.version ?? 0;
    await connect({ connectionString: url, logger, migrations: first });
    await connect({ connectionString: url, logger, migrations: MIGRATIONS.slice(0, -1) });
    await connect({ connectionString: url, logger, datasource: "main" });
    await connect({ connectionString: url, logger });
    const penultimate = MIGRATIONS.at(-2)?.version ?? 0;
    expect(lines).toEqual([
      {
        obj: { datasource: "postgres", from: 0, to: from, applied: first.map((m) => m.version) },
        msg: `postgres store created at schema version ${from}`,
      },
      {
        obj: { datasource: "postgres", from, to: penultimate, applied: [penultimate] },
        msg: `postgres store migrated from schema version ${from} to ${penultimate} (1 step)`,
      },
      {
        obj: { datasource: "main", from: penultimate, to: last, applied: [last] },
        msg: `postgres store migrated from schema version ${penultimate} to ${last} (1 step)`,
      },
    ]);
  });

  it("says how many steps a migration applied when it is more than one", async () => {
    const url = await pg.server().createDatabase();
    const lines: string[] = [];
    const logger = { info: (_obj: object, msg: string) => lines.push(msg) };
    await connect({ connectionString: url, logger, migrations: MIGRATIONS.slice(0, -3) });
    await connect({ connectionString: url, logger });
    const from = MIGRATIONS.at(-4)?.version ?? 0;
    expect(lines[1]).toBe(`postgres store migrated from schema version ${from} to ${last} (3 steps)`);
  });

  it("close() twice ends the pool once and resolves both", async () => {
    const url = await pg.server().createDatabase();
    const store = await connectPostgres({ connectionString: url, express: true, max: 2 });
    const firstClose = store.close();
    expect(store.close()).toBe(firstClose);
    await firstClose;
    expect(store.pool.ended).toBe(true);
  });

  it("an idle pooled connection lost is a warn line naming the datasource and the failure", async () => {
    const url = await pg.server().createDatabase();
    let warned!: (line: { obj: Record<string, unknown>; msg: string }) => void;
    const warning = new Promise<{ obj: Record<string, unknown>; msg: string }>((r) => {
      warned = r;
    });
    const store = await connect({
      connectionString: url,
      applicationName: "agentsvc-idle-edges",
      logger: {
        info: () => undefined,
        warn: (obj, msg) => warned({ obj: obj as Record<string, unknown>, msg }),
      },
    });
    await store.pool.query("SELECT 1");
    await query(
      pg.server().url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentsvc-idle-edges'",
    );
    const line = await warning;
    expect(line.msg).toBe("postgres: an idle pooled connection failed; it is replaced on next use");
    expect(line.obj.datasource).toBe("postgres");
    expect(String(line.obj.err)).toMatch(/terminat/i);
  });

  it("a schema version table it cannot read is migration_failed naming the datasource", async () => {
    const url = await pg.server().createDatabase();
    await query(url, "CREATE TABLE agentsvc_schema_version (nothing int)");
    const err = await expectStoreError(
      connectPostgres({ connectionString: url, migrate: false, datasource: "main" }),
      "migration_failed",
      /^datasource "main": reading the schema of postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ failed: .*version/,
    );
    expect((err.cause as { code?: string } | undefined)?.code).toBe("42703"); // undefined_column
  });

  it("a migration step that fails is reported in the migration's own words, naming the datasource and its target", async () => {
    const url = await pg.server().createDatabase();
    await expectStoreError(
      connectPostgres({
        connectionString: url,
        datasource: "main",
        migrations: [{ version: 1, name: "broken", sql: "SELECT no_such_column FROM no_such_table" }],
      }),
      "migration_failed",
      /^datasource "main" \(postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+\): migration step 1 \("broken"\) failed: .*nothing was applied, the database stays at schema version 0$/,
    );
  });

  it("an idle connection lost on either pool is a warn line each (the express lane's too)", async () => {
    const url = await pg.server().createDatabase();
    const warnings: string[] = [];
    let both!: () => void;
    const twoWarnings = new Promise<void>((r) => {
      both = r;
    });
    const store = await connect({
      connectionString: url,
      max: 2,
      express: true,
      applicationName: "agentsvc-idle-lane",
      logger: {
        info: () => undefined,
        warn: (_obj, msg) => {
          if (warnings.push(msg) === 2) both();
        },
      },
    });
    await store.pool.query("SELECT 1");
    await store.express.execute("SELECT 1");
    await query(
      pg.server().url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentsvc-idle-lane'",
    );
    await twoWarnings;
    expect(warnings).toEqual([
      "postgres: an idle pooled connection failed; it is replaced on next use",
      "postgres: an idle pooled connection failed; it is replaced on next use",
    ]);
  });

  it("an idle connection lost with no logger, or one without warn, is no uncaught error", async () => {
    const url = await pg.server().createDatabase();
    const silent = await connect({ connectionString: url, applicationName: "agentsvc-idle-quiet" });
    const infoOnly = await connect({
      connectionString: url,
      applicationName: "agentsvc-idle-quiet",
      migrate: false,
      logger: { info: () => undefined },
    });
    await silent.pool.query("SELECT 1");
    await infoOnly.pool.query("SELECT 1");
    // Listened after connectPostgres's own listener: reached only when that one did not throw.
    const lost = [once(silent.pool, "error"), once(infoOnly.pool, "error")];
    await query(
      pg.server().url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentsvc-idle-quiet'",
    );
    await Promise.all(lost);
    expect((await silent.pool.query("SELECT 1 AS n")).rows).toEqual([{ n: 1 }]);
    expect((await infoOnly.pool.query("SELECT 1 AS n")).rows).toEqual([{ n: 1 }]);
  });
});
