import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { PostgresDatasource } from "@agentsvc/config-schema";
import { postgresMissing } from "@agentsvc/pg-test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPostgres, resolvePoolConfig } from "../src/connect.js";
import { connectDatasource } from "../src/datasource.js";
import { MIGRATIONS } from "../src/migrations.js";
import { redactConnectionString } from "../src/redact.js";
import {
  addPasswordRole,
  connect,
  enableTls,
  expectStoreError,
  query,
  usePostgres,
  withUser,
} from "./helpers.js";

const SECRET = "s3cret-Hunter2";

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Accepts TCP connections and never says a word: a server that hangs during start-up. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const srv: Server = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return {
    port: (srv.address() as { port: number }).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => srv.close(() => r()));
    },
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

describe("connection strings are redacted", () => {
  it("replaces the password and password-like parameters, and shows nothing of a non-URL", () => {
    expect(redactConnectionString(`postgres://app:${SECRET}@db.internal:5432/agentsvc?sslmode=require`)).toBe(
      "postgres://app:***@db.internal:5432/agentsvc?sslmode=require",
    );
    expect(redactConnectionString(`postgres://app@db/x?password=${SECRET}`)).not.toContain(SECRET);
    expect(redactConnectionString(`host=db password=${SECRET}`)).not.toContain(SECRET);
  });
});

describe("connectPostgres options", () => {
  const url = `postgres://app:${SECRET}@db.internal:5432/agentsvc`;

  it("defaults: pool 10, application name agentsvc, 10 s connect timeout, idle connections kept 10 minutes with keepalives, TLS verify-full off loopback and off on loopback", () => {
    const remote = resolvePoolConfig({ connectionString: url });
    expect(remote.ssl).toBe("verify-full");
    expect(remote.config).toMatchObject({
      max: 10,
      application_name: "agentsvc",
      connectionTimeoutMillis: 10_000,
      ssl: { rejectUnauthorized: true },
      // Kept through pauses in traffic (ending a backend costs PostgreSQL CPU), probed while kept.
      idleTimeoutMillis: 600_000,
      keepAlive: true,
    });
    expect(remote.config.statement_timeout).toBeUndefined();
    expect(resolvePoolConfig({ connectionString: "postgres://u@127.0.0.1/x" }).ssl).toBe("off");
    expect(resolvePoolConfig({ connectionString: "postgres://u@localhost/x" }).config.ssl).toBe(false);
  });

  it("the URL's sslmode decides when ssl is not set; a conflict or an unsupported mode is refused naming the fix", () => {
    expect(resolvePoolConfig({ connectionString: `${url}?sslmode=require` })).toMatchObject({
      ssl: "require",
      config: { ssl: { rejectUnauthorized: false } },
    });
    // node-postgres would let URL parameters override the ssl option: they are removed from what it gets.
    expect(
      resolvePoolConfig({ connectionString: `${url}?sslmode=require` }).config.connectionString,
    ).not.toContain("sslmode");
    expect(resolvePoolConfig({ connectionString: `${url}?sslmode=disable` }).ssl).toBe("off");
    expect(() =>
      resolvePoolConfig({ connectionString: `${url}?sslmode=require`, ssl: "off", datasource: "main" }),
    ).toThrow(/datasource "main": ssl is "off" but the connection string asks for sslmode=require/);
    expect(() =>
      resolvePoolConfig({ connectionString: `${url}?sslmode=prefer`, urlEnvVar: "DATABASE_URL" }),
    ).toThrow(/sslmode=prefer in DATABASE_URL is not supported/);
    expect(() => resolvePoolConfig({ connectionString: `${url}?sslcert=/x.pem` })).toThrow(
      /client certificates are not supported/,
    );
  });

  it("sslCaFile: only with verify-full, must be readable (resolved against appRoot)", () => {
    expect(() => resolvePoolConfig({ connectionString: url, ssl: "require", sslCaFile: "ca.pem" })).toThrow(
      /sslCaFile is only used with ssl: verify-full/,
    );
    expect(() =>
      resolvePoolConfig({
        connectionString: url,
        ssl: "verify-full",
        sslCaFile: "ca.pem",
        appRoot: "/nonexistent",
      }),
    ).toThrow(/sslCaFile: cannot read \/nonexistent\/ca\.pem/);
  });

  it("refuses a bad pool size, and a value that is not a postgres URL without echoing it", () => {
    expect(() => resolvePoolConfig({ connectionString: url, max: 0, datasource: "main" })).toThrow(
      /datasource "main": pool must be an integer >= 1 \(got 0\)/,
    );
    let message = "";
    try {
      resolvePoolConfig({ connectionString: `mysql://app:${SECRET}@db/x`, urlEnvVar: "DATABASE_URL" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/DATABASE_URL must hold a postgres:\/\/user:password@host:port\/database URL/);
    expect(message).not.toContain(SECRET);
  });
});

describe("connectDatasource", () => {
  const ds: PostgresDatasource = { type: "postgres", urlEnvVar: "AGENTSVC_TEST_DB_URL", pool: 3 };

  it("fails at start with a clear error when the connection-string variable is unset", async () => {
    await expectStoreError(
      connectDatasource({
        name: "main",
        datasource: ds,
        env: {},
        appRoot: "/",
        source: "agentsvc.config.yaml",
      }),
      "env_unset",
      'agentsvc.config.yaml: datasources.main.urlEnvVar: environment variable AGENTSVC_TEST_DB_URL is not set (the postgres datasource "main" needs its connection string there',
    );
  });
});

describe.skipIf(postgresMissing)("connectPostgres against a real PostgreSQL", () => {
  const pg = usePostgres();
  let tls: { caFile: string; dir: string };

  beforeAll(async () => {
    await addPasswordRole(pg.server(), "app_pw", SECRET);
    tls = await enableTls(pg.server());
  });
  afterAll(() => {
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
  });

  it("pool size, application name and statement timeout reach the server", async () => {
    const url = await pg.server().createDatabase();
    const store = await connect({
      connectionString: url,
      max: 3,
      applicationName: "agentsvc-test",
      statementTimeoutMs: 1234,
    });
    expect(store.pool.options.max).toBe(3);
    const { rows } = await store.pool.query<{ app: string; timeout: string }>(
      "SELECT current_setting('application_name') AS app, current_setting('statement_timeout') AS timeout",
    );
    expect(rows[0]).toEqual({ app: "agentsvc-test", timeout: "1234ms" });
  });

  it("pooled connections plan each named statement for its parameters (no cached generic plan); a plan_cache_mode in the URL's options is kept", async () => {
    const url = await pg.server().createDatabase();
    const store = await connect({ connectionString: url });
    const mode = async (s: typeof store) =>
      (await s.pool.query<{ mode: string }>("SELECT current_setting('plan_cache_mode') AS mode")).rows[0]
        ?.mode;
    expect(await mode(store)).toBe("force_custom_plan");
    const own = await connect({
      connectionString: `${url}?options=${encodeURIComponent("-c plan_cache_mode=auto")}`,
      migrate: false,
    });
    expect(await mode(own)).toBe("auto");
  });

  it("a password role signs in with the right password; a wrong one is auth_failed, named and redacted, at once", async () => {
    const url = await pg.server().createDatabase();
    const good = await connect({ connectionString: withUser(url, "app_pw", SECRET), migrate: false });
    expect((await good.pool.query("SELECT current_user AS u")).rows[0]).toEqual({ u: "app_pw" });
    const bad = withUser(url, "app_pw", `wrong-${SECRET}`);
    const { value: err, ms } = await timed(() =>
      expectStoreError(
        connectPostgres({
          connectionString: bad,
          datasource: "main",
          source: "agentsvc.config.yaml",
          urlEnvVar: "DATABASE_URL",
        }),
        "auth_failed",
        /^agentsvc\.config\.yaml: datasources\.main: PostgreSQL at postgres:\/\/app_pw:\*\*\*@127\.0\.0\.1:\d+\/\w+ refused the sign-in/,
        /password authentication failed for user "app_pw"/,
        /check the user name and password in DATABASE_URL/,
      ),
    );
    expect(err.message).not.toContain(SECRET);
    expect(String(err.stack)).not.toContain(SECRET);
    expect(ms).toBeLessThan(5_000);
  });

  it("a closed port is unreachable, named and redacted, well within the connect timeout", async () => {
    const port = await closedPort();
    const { value: err, ms } = await timed(() =>
      expectStoreError(
        connectPostgres({
          connectionString: `postgres://app:${SECRET}@127.0.0.1:${port}/db`,
          datasource: "main",
        }),
        "unreachable",
        new RegExp(
          `datasource "main": cannot reach PostgreSQL at postgres://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/db`,
        ),
        /ECONNREFUSED/,
        /check that the server is running/,
      ),
    );
    expect(err.message).not.toContain(SECRET);
    expect(ms).toBeLessThan(3_000);
  });

  it("a server that accepts and never answers is unreachable after connectTimeoutMs", async () => {
    const silent = await silentServer();
    try {
      const { ms } = await timed(() =>
        expectStoreError(
          connectPostgres({
            connectionString: `postgres://app:${SECRET}@127.0.0.1:${silent.port}/db`,
            connectTimeoutMs: 500,
          }),
          "unreachable",
          /within 500 ms/,
        ),
      );
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(3_000);
    } finally {
      await silent.close();
    }
  });

  it("a database that does not exist is database_missing, saying to create it", async () => {
    const url = new URL(pg.server().url);
    url.pathname = "/no_such_db";
    await expectStoreError(
      connectPostgres({ connectionString: url.toString() }),
      "database_missing",
      /does not exist/,
    );
  });

  it("TLS: require encrypts; verify-full checks the certificate against sslCaFile and refuses an unknown CA", async () => {
    const url = await pg.server().createDatabase();
    const sslOf = async (store: { pool: { query: (q: string) => Promise<{ rows: { ssl: boolean }[] }> } }) =>
      (await store.pool.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")).rows[0]?.ssl;
    expect(await sslOf(await connect({ connectionString: url, ssl: "off" }))).toBe(false);
    expect(await sslOf(await connect({ connectionString: url, ssl: "require" }))).toBe(true);
    expect(
      await sslOf(await connect({ connectionString: url, ssl: "verify-full", sslCaFile: tls.caFile })),
    ).toBe(true);
    await expectStoreError(
      connectPostgres({ connectionString: url, ssl: "verify-full", datasource: "main" }),
      "tls_failed",
      /the server certificate was not accepted/,
      /set sslCaFile to the CA that signed it/,
    );
  });

  it("connectDatasource reads the variable and applies the datasource's pool size and idle timeout", async () => {
    const url = await pg.server().createDatabase();
    const store = await connectDatasource({
      name: "main",
      datasource: {
        type: "postgres",
        urlEnvVar: "AGENTSVC_TEST_DB_URL",
        pool: 4,
        ssl: "off",
        idleTimeoutMs: 45_000,
      },
      env: { AGENTSVC_TEST_DB_URL: url },
      appRoot: "/",
    });
    try {
      expect(store.datasource).toBe("main");
      expect(store.pool.options.max).toBe(4);
      expect(store.pool.options.idleTimeoutMillis).toBe(45_000);
      expect(store.migration.applied).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(postgresMissing)("connectPostgres against a PostgreSQL without TLS", () => {
  const pg = usePostgres();

  it("ssl: require against a server without TLS is tls_failed, saying what to set", async () => {
    const url = await pg.server().createDatabase();
    await expectStoreError(
      connectPostgres({ connectionString: url, ssl: "require", datasource: "main" }),
      "tls_failed",
      /datasource "main": PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ does not accept TLS connections/,
      /set ssl: off on the datasource/,
    );
  });

  it("an idle pooled connection killed by the server is logged and replaced, not an uncaught error", async () => {
    const url = await pg.server().createDatabase();
    const warnings: string[] = [];
    const store = await connect({
      connectionString: url,
      applicationName: "agentsvc-idle-test",
      logger: { info: () => undefined, warn: (_obj, msg) => warnings.push(msg) },
    });
    await store.pool.query("SELECT 1");
    expect(store.pool.idleCount).toBeGreaterThan(0);
    await query(
      pg.server().url,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentsvc-idle-test'",
    );
    const deadline = Date.now() + 5_000;
    while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(warnings[0]).toMatch(/an idle pooled connection failed; it is replaced on next use/);
    expect((await store.pool.query<{ n: number }>("SELECT 1 AS n")).rows).toEqual([{ n: 1 }]);
  });
});
