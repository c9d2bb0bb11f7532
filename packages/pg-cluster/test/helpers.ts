import { createRequire } from "node:module";
import type { Client } from "pg";
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
