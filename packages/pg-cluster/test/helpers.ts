import { createRequire } from "node:module";
import { startPostgres, type TestPostgres } from "@agentsvc/pg-test";
import type { Client } from "pg";
import { afterAll, beforeAll } from "vitest";
import { InstanceLink, type InstanceLinkOptions } from "../src/index.js";
import { advisoryKey } from "../src/keys.js";

const require = createRequire(import.meta.url);
const pg = require("pg") as typeof import("pg");

/** A plain connection for looking at the server from outside the links under test. */
export async function monitor(connectionString: string): Promise<Client> {
  const client = new pg.Client({ connectionString });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/**
 * Backend pids holding the advisory lock of `name` according to `pg_locks` (a bigint key shows as
 * classid = its high 32 bits, objid = its low 32 bits, objsubid = 1).
 */
export async function lockHolders(client: Client, name: string): Promise<number[]> {
  const key = BigInt.asUintN(64, advisoryKey(name));
  const res = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND classid = $1::bigint::oid AND objid = $2::bigint::oid
      ORDER BY pid`,
    [(key >> 32n).toString(), (key & 0xffffffffn).toString()],
  );
  return res.rows.map((r) => r.pid);
}

/** Ends a backend from outside, as an operator (or a failover) would. */
export async function terminate(client: Client, pid: number): Promise<void> {
  const res = await client.query<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [pid]);
  if (res.rows[0]?.ok !== true) throw new Error(`pg_terminate_backend(${pid}) did not end it`);
}

/** Polls `check` every 20 ms until it returns a value other than undefined/false, or throws after `ms`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A login role `role` without superuser rights (a superuser ignores revoked rights), its URL for
 * `url`'s database, and switches for the right to call the advisory-lock functions the link's lock
 * statement uses (`revoke` makes the server refuse every take and give-back of a lock there).
 */
export async function limitedRole(mon: Client, url: string, role: string) {
  await mon.query(`CREATE ROLE ${role} LOGIN`);
  const limited = new URL(url);
  limited.username = role;
  const functions = "FUNCTION pg_try_advisory_lock(bigint), pg_advisory_unlock(bigint)";
  return {
    url: limited.href,
    revoke: async () => void (await mon.query(`REVOKE EXECUTE ON ${functions} FROM PUBLIC`)),
    grant: async () => void (await mon.query(`GRANT EXECUTE ON ${functions} TO PUBLIC`)),
  };
}

/**
 * The PostgreSQL every test of a `describe` shares: one server and database, a monitor connection
 * for looking from outside, and `link()` for the links a test opens (all closed after the suite).
 * Call inside the `describe`; the fields are set once `beforeAll` ran.
 */
export function usePostgres(setup?: () => void): {
  readonly url: string;
  readonly mon: Client;
  link(options?: Partial<InstanceLinkOptions>): Promise<InstanceLink>;
} {
  let server: TestPostgres | undefined;
  const links: InstanceLink[] = [];
  const state = {
    url: "",
    mon: undefined as unknown as Client,
    async link(options: Partial<InstanceLinkOptions> = {}) {
      const link = new InstanceLink({ connectionString: state.url, ...options });
      links.push(link);
      await link.connect();
      return link;
    },
  };
  beforeAll(async () => {
    setup?.();
    server = await startPostgres();
    state.url = await server.createDatabase();
    state.mon = await monitor(state.url);
  });
  afterAll(async () => {
    await Promise.all(links.splice(0).map((l) => l.close()));
    await state.mon?.end();
    await server?.stop();
  });
  return state;
}

/**
 * Every call of `client.query` made by any pg client of this process while `work` runs: the
 * statement's text, and how many queries that client had already been handed and not answered.
 */
export async function queriesOf(work: () => Promise<void>): Promise<{ text: string; busy: number }[]> {
  const seen: { text: string; busy: number }[] = [];
  const inFlight = new WeakMap<object, number>();
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: object, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const busy = inFlight.get(this) ?? 0;
    seen.push({ text: typeof config === "string" ? config : (config.text ?? ""), busy });
    inFlight.set(this, busy + 1);
    const result = original.apply(this, args);
    const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  return seen;
}
