// `agentsvc doctor` on a PostgreSQL datasource, against a real server (tooling/pg-test): connects as
// the server will, reads the version and the schema steps not yet applied, and names the fix for
// a wrong password and an unreachable host; pending migrations are reported, not failed.
import { createServer } from "node:net";
import { postgresMissing, startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import {
  CURRENT_SCHEMA_VERSION,
  connectPostgres,
  MIGRATIONS,
  SCHEMA_VERSION_TABLE,
} from "@agentsvc/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, tempDir, writeFiles } from "./helpers.js";

interface Report {
  ok: boolean;
  checks: { check: string; status: string; detail: string; fix?: string }[];
}

const PASSWORD = "doctor-pw-4711";

describe.skipIf(postgresMissing)("agentsvc doctor: the PostgreSQL datasource", () => {
  let server: TestPostgres;
  let dir: string;
  let url: string;

  const withPassword = (u: string, password: string) =>
    u.replace("postgres://postgres@", `postgres://app:${password}@`);

  beforeAll(async () => {
    server = await startPostgres();
    await server.addPasswordRole("app", PASSWORD);
    url = await server.createDatabase();
    dir = tempDir("agentsvc-doctor-pg-");
    writeFiles(dir, {
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "agentsvc.config.yaml":
        "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\nstore: main\n",
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("a database nothing migrated yet: connected with the version, every step reported pending (ok, exit 0), nothing applied", async () => {
    const fresh = await server.createDatabase();
    const r = await run(["doctor", dir, "--json"], { env: { DATABASE_URL: fresh } });
    const report = JSON.parse(r.stdout) as Report;
    expect(r.code).toBe(0);
    const [connect, migrations] = report.checks;
    expect(connect?.status).toBe("ok");
    expect(connect?.detail).toMatch(
      /^connected to postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+, PostgreSQL \d+/,
    );
    expect(migrations).toMatchObject({ check: "postgres datasource main migrations", status: "ok" });
    // Every shipped step, named by version (the newest is CURRENT_SCHEMA_VERSION).
    expect(migrations?.detail).toMatch(
      new RegExp(`^an empty database: ${MIGRATIONS.length} migrations pending \\(\\d+ `),
    );
    expect(migrations?.detail).toContain(`${CURRENT_SCHEMA_VERSION} ${MIGRATIONS.at(-1)?.name}`);
    expect(migrations?.detail).toMatch(/; start applies them$/);
    // doctor applied nothing.
    const again = JSON.parse(
      (await run(["doctor", dir, "--json"], { env: { DATABASE_URL: fresh } })).stdout,
    ) as Report;
    expect(again.checks[1]?.detail).toMatch(/^an empty database: /);
  });

  it("a database one schema version older (an upgrade) reports the step pending as ok and exits 0", async () => {
    const older = await server.createDatabase();
    const store = await connectPostgres({ connectionString: older });
    await store.pool.query(
      `DELETE FROM ${SCHEMA_VERSION_TABLE} WHERE version > ${CURRENT_SCHEMA_VERSION - 1}`,
    );
    await store.close();
    const r = await run(["doctor", dir, "--json"], { env: { DATABASE_URL: older } });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks[1]).toMatchObject({
      check: "postgres datasource main migrations",
      status: "ok",
      detail: `schema version ${CURRENT_SCHEMA_VERSION - 1}: 1 migration pending (${CURRENT_SCHEMA_VERSION} ${MIGRATIONS.at(-1)?.name}); start applies them`,
    });
    expect(report.checks[1]?.fix).toBeUndefined();
    expect(r.code).toBe(0);
    const text = await run(["doctor", dir], { env: { DATABASE_URL: older } });
    expect(text.stdout).toMatch(
      /^ok\s+postgres datasource main migrations\s+schema version \d+: 1 migration pending/m,
    );
  });

  it("a migrated database signed in with a password role passes, schema version named", async () => {
    const store = await connectPostgres({ connectionString: url });
    await store.pool.query("GRANT ALL ON ALL TABLES IN SCHEMA public TO app");
    await store.close();
    const r = await run(["doctor", dir, "--json"], { env: { DATABASE_URL: withPassword(url, PASSWORD) } });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([
      ["postgres datasource main", "ok"],
      ["postgres datasource main migrations", "ok"],
    ]);
    expect(report.checks[1]?.detail).toBe(`schema version ${CURRENT_SCHEMA_VERSION}, nothing pending`);
    expect(r.code).toBe(0);
  });

  it("a database exactly one schema version newer (a rolled-back deploy) fails with the fix", async () => {
    const newer = await server.createDatabase();
    const store = await connectPostgres({ connectionString: newer });
    const next = CURRENT_SCHEMA_VERSION + 1;
    await store.pool.query(`INSERT INTO ${SCHEMA_VERSION_TABLE} VALUES (${next}, 'next', 'x', 0)`);
    await store.close();
    const r = await run(["doctor", dir, "--json"], { env: { DATABASE_URL: newer } });
    const report = JSON.parse(r.stdout) as Report;
    expect(r.code).toBe(1);
    expect(report.checks[1]).toMatchObject({
      check: "postgres datasource main migrations",
      status: "failed",
      detail: `the database is at schema version ${next}, this agentsvc knows ${CURRENT_SCHEMA_VERSION}`,
    });
    expect(report.checks[1]?.fix).toMatch(/a newer agentsvc migrated this database/);
  });

  it("a wrong password and an unreachable host each fail with the fix, the password never shown", async () => {
    const bad = await run(["doctor", dir], { env: { DATABASE_URL: withPassword(url, "wrong-secret-pw") } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAILED\s+postgres datasource main\s+auth_failed/);
    expect(bad.stdout).toMatch(
      /fix: .*refused the sign-in.*check the user name and password in DATABASE_URL/,
    );
    expect(bad.stdout + bad.stderr).not.toContain("wrong-secret-pw");

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const down = await run(["doctor", dir, "--json"], {
      env: { DATABASE_URL: `postgres://app:${PASSWORD}@127.0.0.1:${port}/db` },
    });
    const report = JSON.parse(down.stdout) as Report;
    expect(report.checks).toHaveLength(1);
    expect(report.checks[0]).toMatchObject({
      check: "postgres datasource main",
      status: "failed",
      detail: "unreachable",
    });
    expect(report.checks[0]?.fix).toMatch(/cannot reach .* check that the server is running/);
    expect(down.stdout).not.toContain(PASSWORD);
  });
});
