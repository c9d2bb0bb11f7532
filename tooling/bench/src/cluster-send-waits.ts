// BENCH_DEBUG, gateway configurations (#45.3): which replies waited long from their commit to their
// send, and on what. A reply is sent only once its thread's earlier pieces are (the due read returns
// thread heads), so a reply's wait splits into the time behind its thread's earlier piece and the
// time as its thread's head; the long ones are counted by outbox partition (outbox-shares.ts: a
// partition nobody sends waits), by attempts (a retry waits its backoff) and by second (a spell in
// which nothing was sent shows as many in one second).
import type { PgClient } from "./pg-client.ts";
import { fmt } from "./stats.ts";

/** A wait from commit to send at least this long is listed. */
const LONG_MS = 1000;

// The partition as session-core's outbox-partition.ts computes it (md5 of "<gateway>\n<thread>",
// its first 4 bytes, modulo 4); the bench's http gateway is spread by hash.
const WAITS = `
  WITH r AS (
    SELECT o.id, o.attempts, o.created_at, o.finished_at,
      (('x' || substr(md5(o.gateway || E'\\n' || o.thread), 1, 8))::bit(32)::bigint % 4)::int AS part,
      greatest(o.created_at, coalesce((SELECT max(p.finished_at) FROM outbox p
        WHERE p.gateway = o.gateway AND p.thread = o.thread AND p.id < o.id), 0)) AS head_at
    FROM outbox o WHERE o.status = 'sent' AND o.created_at >= $1)
  SELECT id, attempts, part, created_at, finished_at - created_at AS wait, finished_at - head_at AS as_head
    FROM r AS bench_probe`;

interface Wait {
  attempts: number;
  part: number;
  createdAt: number;
  wait: number;
  asHead: number;
}

const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;

/** Prints where the replies committed since `since` (ms epoch) waited `LONG_MS` or more. */
export async function printSendWaits(db: PgClient, since: number, title: string): Promise<void> {
  const { rows } = await db.query(WAITS, [since]);
  const waits: Wait[] = rows.map((r) => ({
    attempts: Number(r.attempts),
    part: Number(r.part),
    createdAt: Number(r.created_at),
    wait: Number(r.wait),
    asHead: Number(r.as_head),
  }));
  const asHead = waits.map((w) => w.asHead).sort((a, b) => a - b);
  const long = waits.filter((w) => w.wait >= LONG_MS);
  const count = (key: (w: Wait) => string | number) => {
    const by = new Map<string | number, number>();
    for (const w of long) by.set(key(w), (by.get(key(w)) ?? 0) + 1);
    return [...by].sort((a, b) => b[1] - a[1]);
  };
  const list = (xs: [string | number, number][]) => xs.map(([k, n]) => `${k}: ${n}`).join(", ");
  console.log(
    `${title}: as its thread's head, p50 ${fmt(p(asHead, 0.5), 0)}, p90 ${fmt(p(asHead, 0.9), 0)}, p99 ${fmt(p(asHead, 0.99), 0)} ms;` +
      ` ${long.length} of ${waits.length} waited >= ${LONG_MS} ms (${long.filter((w) => w.asHead >= LONG_MS).length} of them as head);` +
      ` by partition ${list(count((w) => w.part))}; by attempts ${list(count((w) => w.attempts))};` +
      ` busiest seconds ${list(count((w) => new Date(Math.floor(w.createdAt / 1000) * 1000).toISOString().slice(11, 19)).slice(0, 6))}`,
  );
}
