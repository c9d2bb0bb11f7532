// One instance over a real PostgreSQL (tests): its store (chat-store on store-postgres), its thread
// locks as the server's coordination takes them (pg-cluster's ThreadLocks on an InstanceLink), and
// a second connection that counts, in `pg_locks`, the advisory locks the instance's link holds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatDb, openPostgresChatDb } from "@agentsvc/chat-store";
import { InstanceLink, ThreadLocks } from "@agentsvc/pg-cluster";
import type { ClusterMessage, Coordination } from "../src/index.js";

/** A ChatDb on the database at `url` (migrated on open); `close` also removes its app root. */
export async function postgresStore(
  url: string,
  pool: number,
): Promise<{ db: ChatDb; close(): Promise<void> }> {
  const appRoot = mkdtempSync(join(tmpdir(), "agentsvc-held-cap-"));
  const db = await openPostgresChatDb({
    name: "main",
    datasource: { type: "postgres", urlEnvVar: "HELD_CAP_TEST_URL", pool },
    appRoot,
    env: { HELD_CAP_TEST_URL: url },
  });
  return {
    db,
    async close() {
      db.close();
      await db.closedSettled;
      rmSync(appRoot, { recursive: true, force: true });
    },
  };
}

export interface LockWatch {
  coordination: Coordination;
  /** Most thread locks taken or being taken at once, counted here (a take counts from its request). */
  peak(): number;
  /** Most advisory locks of the link seen in `pg_locks` by the sampler. */
  seenPeak(): number;
  /** Errors of lock statements and of the sampler's statements (a full lock table refuses them). */
  refused: string[];
  close(): Promise<void>;
}

/**
 * The coordination of one instance on PostgreSQL over `locks`, as the server builds it (apps/server
 * pg-coordination.ts) minus the bus: its announcements come back to itself, as NOTIFY's do on a
 * lone instance, and it always leads (no leader lock: every advisory lock of the link is a thread's).
 * The fence is folded into the turn's end statement (heldLock).
 */
export function lockCoordination(
  locks: ThreadLocks,
): Coordination & { heldLock: NonNullable<Coordination["heldLock"]> } {
  const subscribers = new Set<(message: ClusterMessage) => void>();
  return {
    shared: true,
    acquireThread: async (key) => locks.isHeld(key) || locks.tryLock(key),
    async releaseThread(key) {
      await locks.unlock(key);
    },
    async publish(message) {
      for (const handler of subscribers) queueMicrotask(() => handler(message));
    },
    subscribe(handler) {
      subscribers.add(handler);
      return () => subscribers.delete(handler);
    },
    lead(_role, handlers) {
      void handlers.onLead();
      return async () => {};
    },
    threadBusy: (key) => locks.heldAnywhere(key),
    onThreadsLost: (handler) => locks.onLost(handler),
    fence: (key) => locks.assertHeld(key),
    heldLock: (key) => locks.heldLock(key),
  };
}

/** lockCoordination on a new link to `url`, counting the thread locks it takes (here and in `pg_locks`). */
export async function watchedLocks(url: string): Promise<LockWatch> {
  const link = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
  await link.connect();
  const monitor = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
  await monitor.connect();
  const locks = new ThreadLocks(link);
  const refused: string[] = [];
  let out = 0;
  let peak = 0;
  let seenPeak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        const [row] = await monitor.query<{ n: number }>(
          // objsubid 1: bigint keys (the thread locks), not the link's incarnation (two int4 keys).
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = $1",
          [link.backendPid],
        );
        seenPeak = Math.max(seenPeak, row?.n ?? 0);
      } catch (err) {
        refused.push(`pg_locks: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const coordination: Coordination = {
    ...lockCoordination(locks),
    async acquireThread(key) {
      if (locks.isHeld(key)) return true;
      out += 1;
      peak = Math.max(peak, out);
      try {
        const taken = await locks.tryLock(key);
        if (!taken) out -= 1;
        return taken;
      } catch (err) {
        out -= 1;
        refused.push(`take: ${(err as Error).message}`);
        throw err;
      }
    },
    async releaseThread(key) {
      try {
        await locks.unlock(key);
      } finally {
        out -= 1;
      }
    },
  };
  return {
    coordination,
    peak: () => peak,
    seenPeak: () => seenPeak,
    refused,
    async close() {
      sampling = false;
      await sampler;
      await monitor.close();
      await link.close();
    },
  };
}
