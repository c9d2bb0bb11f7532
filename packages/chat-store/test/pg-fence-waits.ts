// What the fence tests (pg-turn-fence, pg-turn-end-batch, pg-outbox-fence-refusal) share: a
// statement held up behind a lock, found by its text, and the codes along an error's cause chain.
import type { pgSession } from "./pg-fence-rig.js";

type Client = Awaited<ReturnType<typeof pgSession>>["client"];

/**
 * The backend pids of this database's sessions waiting on a lock in a statement whose text matches
 * `like` (ILIKE), asked on `client` every 10 ms until there is one (at most 500 times). Ask on a
 * session outside a transaction: one inside sees pg_stat_activity as its transaction began.
 */
export async function lockWaiters(client: Client, like: string): Promise<number[]> {
  const ask = async () =>
    (
      await client.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1",
        [like],
      )
    ).rows.map((row) => Number(row.pid));
  let pids = await ask();
  for (let i = 0; i < 500 && pids.length === 0; i++) {
    await new Promise((ok) => setTimeout(ok, 10));
    pids = await ask();
  }
  return pids;
}

/**
 * Resolves once no session of this database holds the advisory lock of bigint `key` (decimal), asked
 * on `client` every 10 ms (at most 500 times). A failed statement's locks go as its transaction is
 * aborted, which the server does after it sent the error: its client may hear the error first.
 */
export async function unheld(client: Client, key: string): Promise<void> {
  const held = async () =>
    (
      await client.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = (($1::bigint >> 32) & 4294967295)::oid AND objid = ($1::bigint & 4294967295)::oid`,
        [key],
      )
    ).rows[0]?.n;
  for (let i = 0; i < 500 && (await held()) !== 0; i++) await new Promise((ok) => setTimeout(ok, 10));
}

/** Opens a transaction on `client` that holds inbox record `id` under a row lock (another instance's read). */
export async function holdInboxRow(client: Client, id: number): Promise<void> {
  await client.query("BEGIN");
  await client.query("SELECT id FROM inbox WHERE id = $1 FOR UPDATE", [id]);
}

/** The SQLSTATE codes along an error's cause chain (drizzle wraps the server's error). */
export function codesOf(error: unknown): unknown[] {
  const codes: unknown[] = [];
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    codes.push(e.code);
  return codes;
}
