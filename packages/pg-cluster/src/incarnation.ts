// A link session's incarnation: a session advisory lock on a random key, taken as the session
// connects and never given back (it ends with the session). A statement on another connection knows
// that this very session is alive with `NOT pg_try_advisory_xact_lock_shared(hi, lo)`: the lock
// manager answers it from one hash lookup, where reading `pg_locks` copies the server's whole lock
// table (every held thread is a row of it: ~1,000 in a burst, 0.35-0.45 ms a read, #45.3).
//
// The key is two int4 halves (pg_locks: classid, objid, objsubid 2): that key space is apart from the
// bigint keys (objsubid 1) of thread and leader locks, so an incarnation never meets one of their
// names. It travels as one random bigint whose high and low 32 bits, each read as a signed int4, are
// the halves: in SQL `(k >> 32)::int` and `((k << 32) >> 32)::int` (chat-store lock-fence.ts).
import { randomBytes } from "node:crypto";

/**
 * A lock as a statement on another connection checks it: its key (decimal) and the session holding
 * it, by its incarnation (see the file header) and its backend pid (named in messages).
 */
export interface SessionLock {
  pid: number;
  key: string;
  incarnation: string;
}

/** A fresh incarnation key (see the file header), as a decimal bigint. */
export function newIncarnation(): string {
  return randomBytes(8).readBigInt64BE(0).toString();
}

/** The two int4 halves of an incarnation key, as `pg_try_advisory_lock(int4, int4)` takes them. */
export function incarnationHalves(key: string): [number, number] {
  const k = BigInt(key);
  return [Number(BigInt.asIntN(32, k >> 32n)), Number(BigInt.asIntN(32, k))];
}

/** Tries before giving up: another session holding a random 64-bit key is as good as impossible. */
const TRIES = 4;

/**
 * Takes a fresh incarnation lock on the session `query` runs on; its key. Rejects (the connect
 * fails) when every try found its key held.
 */
export async function takeIncarnation(
  query: (text: string, values: unknown[]) => Promise<{ rows: { ok?: unknown }[] }>,
): Promise<string> {
  for (let i = 0; i < TRIES; i++) {
    const key = newIncarnation();
    const res = await query("SELECT pg_try_advisory_lock($1::int, $2::int) AS ok", incarnationHalves(key));
    if (res.rows[0]?.ok === true) return key;
  }
  throw new Error("InstanceLink: could not take an incarnation lock (its random keys were all held)");
}
