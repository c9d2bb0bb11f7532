import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { giveToServer, startPostgres, type TestPostgres, testCertificates } from "@agentsvc/pg-test";
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type ConnectPostgresOptions, connectPostgres, type PostgresStore } from "../src/connect.js";
import { PostgresStoreError } from "../src/errors.js";

/**
 * One throwaway server per test file (started in beforeAll, stopped in afterAll); each test takes
 * a fresh database from it. Stores opened through `connect` are closed after each test.
 */
export function usePostgres(): { server: () => TestPostgres } {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    server: () => {
      if (!server) throw new Error("the test server is not running");
      return server;
    },
  };
}

const stores: PostgresStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** connectPostgres, closed after the test. */
export async function connect(options: ConnectPostgresOptions): Promise<PostgresStore> {
  const store = await connectPostgres(options);
  stores.push(store);
  return store;
}

/** Runs `sql` on `url` with a plain client (no store, no migration). */
export async function query<R extends pg.QueryResultRow = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Awaits `promise`, expects a PostgresStoreError with `code` whose message matches every fragment. */
export async function expectStoreError(
  promise: Promise<unknown>,
  code: PostgresStoreError["code"],
  ...fragments: (string | RegExp)[]
): Promise<PostgresStoreError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught, "expected a PostgresStoreError").toBeInstanceOf(PostgresStoreError);
  const e = caught as PostgresStoreError;
  expect(e.code, e.message).toBe(code);
  for (const f of fragments) expect(e.message).toMatch(f);
  return e;
}

/** `url` with user and password replaced. */
export function withUser(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

async function reload(url: string, ready: () => Promise<boolean>): Promise<void> {
  await query(url, "SELECT pg_reload_conf()");
  const deadline = Date.now() + 10_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error("the server did not pick up the new configuration in 10 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Creates a login role that must sign in with a password (scram-sha-256 on 127.0.0.1): the test
 * server trusts loopback otherwise. Returns the role's name.
 */
export async function addPasswordRole(server: TestPostgres, role: string, password: string): Promise<void> {
  await query(server.url, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  const [row] = await query<{ hba_file: string }>(server.url, "SHOW hba_file");
  const file = row!.hba_file;
  const rules = readFileSync(file, "utf8");
  writeFileSync(file, `host all ${role} 127.0.0.1/32 scram-sha-256\n${rules}`);
  await reload(server.url, async () => {
    const probe = new pg.Client({ connectionString: withUser(server.url, role, "not-the-password") });
    try {
      await probe.connect();
      await probe.end();
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Turns TLS on with a throwaway CA and a server certificate for 127.0.0.1 (subjectAltName IP).
 * Returns the CA's PEM file path. Plain connections keep working (the server accepts both).
 */
export async function enableTls(server: TestPostgres): Promise<{ caFile: string; dir: string }> {
  const certs = testCertificates();
  const [row] = await query<{ data_directory: string }>(server.url, "SHOW data_directory");
  const data = row!.data_directory;
  writeFileSync(join(data, "test-server.pem"), readFileSync(certs.certFile));
  writeFileSync(join(data, "test-server.key"), readFileSync(certs.keyFile));
  giveToServer(join(data, "test-server.pem"));
  giveToServer(join(data, "test-server.key"));
  await query(server.url, "ALTER SYSTEM SET ssl_cert_file = 'test-server.pem'");
  await query(server.url, "ALTER SYSTEM SET ssl_key_file = 'test-server.key'");
  await query(server.url, "ALTER SYSTEM SET ssl = on");
  await reload(server.url, async () => {
    const [r] = await query<{ ssl: string }>(server.url, "SHOW ssl");
    return r?.ssl === "on";
  });
  return { caFile: certs.caFile, dir: certs.dir };
}
