// The fence tests' rigs (pg-outbox-fence*.test.ts; pg-turn-fence and pg-turn-end-batch take
// useStoreSessions): a PostgreSQL store with due pieces, and sessions of the test's own on its
// database, each with its backend pid (what a fence names) and a way to take role locks; every
// session is ended after each test.
import { randomBytes } from "node:crypto";
import { afterEach } from "vitest";
import { postgresDriver, postgresUrlOf, tempRoot } from "./helpers.js";
import { storePg } from "./pg-statements.js";

/**
 * A connection of the test's own to `url`, with its backend pid and its incarnation (what a fence
 * names): a random key whose two int4 halves it holds as a session advisory lock from its start, as
 * pg-cluster's link does (its incarnation.ts; the halves computed here, not by the SQL under test).
 */
export async function pgSession(url: string) {
  const client = new (storePg().Client)({ connectionString: url });
  await client.connect();
  const pid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
  const incarnation = randomBytes(8).readBigInt64BE(0);
  const halves = [BigInt.asIntN(32, incarnation >> 32n), BigInt.asIntN(32, incarnation)].map(Number);
  await client.query("SELECT pg_advisory_lock($1::int, $2::int)", halves);
  return { client, pid, incarnation: incarnation.toString() };
}

/** Two role keys: one with the high bit set (a negative bigint), whose halves pg_locks shows unsigned. */
export const KEYS = ["-7355608123456789", "4242424242424242"];

/**
 * Registers the calling file's cleanup (hooks registered when called, not at import); returns its
 * rig: a store with one due text piece of gateway "g" for each of `threads` (thread "a": "a1").
 */
export function useFenceRig(threads: string[]) {
  const ends: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const end of ends.splice(0).reverse()) await end();
  });
  return async () => {
    const appRoot = tempRoot();
    const db = await postgresDriver.open({ appRoot });
    const url = await postgresUrlOf(appRoot);
    const session = async () => {
      const { client, pid, incarnation } = await pgSession(url);
      let ended = false;
      const end = async () => {
        if (ended) return;
        ended = true;
        await client.end();
      };
      ends.push(end);
      const lock = async (keys: string[]) => {
        for (const key of keys) await client.query("SELECT pg_advisory_lock($1::bigint)", [key]);
      };
      /** What a fence names for `key` held by this session. */
      const held = (key: string) => ({ pid, key, incarnation });
      /** Ends the session from another one (the server ends it: its locks go, the client is not told). */
      const terminate = async (by: { query(text: string, values: unknown[]): Promise<unknown> }) => {
        ended = true;
        client.on("error", () => {});
        await by.query("SELECT pg_terminate_backend($1::int)", [pid]);
        for (let i = 0; i < 500; i++) {
          const { rows } = (await by.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])) as {
            rows: unknown[];
          };
          if (rows.length === 0) return;
          await new Promise((ok) => setTimeout(ok, 10));
        }
        throw new Error(`session ${pid} did not end`);
      };
      return { client, pid, incarnation, held, lock, end, terminate };
    };
    if (threads.length > 0)
      await db.outbox.enqueue(
        threads.map((t) => ({
          gateway: "g",
          thread: t,
          idemKey: `${t}1`,
          kind: "text" as const,
          payload: { text: `${t}1` },
        })),
      );
    return { db, session };
  };
}

/**
 * Registers the calling file's cleanup; returns its rig: a store in a fresh database (nothing due)
 * and two sessions of the test's own on it (an instance's link, another's), ended after each test.
 */
export function useStoreSessions() {
  const rig = useFenceRig([]);
  return async () => {
    const { db, session } = await rig();
    return { db, link: await session(), other: await session(), session };
  };
}
