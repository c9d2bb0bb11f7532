// The sweep of several instances: work nobody runs, found in the store and taken here (queued
// messages whose announcement was lost, threads of a dead instance).
import type { Coordination } from "./coordination.js";
import type { SessionParts } from "./parts.js";
import type { InboxRecord } from "./store.js";
import { gatewayThreadId } from "./threads.js";

/** Threads a sweep takes on at once. */
const SWEEP_CONCURRENCY = 16;

export interface SweepDeps {
  parts: SessionParts;
  coordination: Coordination;
  /** Threads not to look at: held here, or waiting for room under the cap (taken as room is made). */
  skip(threadId: string): boolean;
  /** Takes the thread when nobody holds it, then its messages not taken yet. */
  poke(gateway: string, thread: string): Promise<void>;
}

/**
 * Work nobody runs: queued messages, and turns left running by an instance that is gone (a
 * suspended turn is at rest: it waits for a decision, not for an instance). `minAgeMs` leaves
 * out threads whose oldest unfinished message is younger: its recorder or its holder is taking
 * it now, and trying the lock of every busy thread on every instance each period was most of
 * what a sweep cost under load. True when some thread was old enough to look at.
 */
export async function sweepUnheld(d: SweepDeps, minAgeMs: number): Promise<boolean> {
  const p = d.parts;
  if (p.stopping()) return false;
  const rows = await p.store.inbox.unfinished();
  // Stryker disable next-line ConditionalExpression: a shortcut; without it the loop below runs over no rows and does nothing
  if (rows.length === 0) return false;
  const queued = new Set(
    rows.filter((r) => r.status === "queued").map((r) => gatewayThreadId(r.gateway, r.thread)),
  );
  const seen = new Set<string>();
  const due: InboxRecord[] = [];
  const before = Date.now() - minAgeMs;
  for (const rec of rows) {
    const threadId = gatewayThreadId(rec.gateway, rec.thread);
    if (seen.has(threadId)) continue;
    seen.add(threadId);
    if (rec.receivedAt > before || d.skip(threadId) || !p.registry.get(rec.gateway)) continue;
    due.push(rec);
  }
  // Several threads at once: their lock requests share statements (lock-batch), a few at a time.
  for (let i = 0; i < due.length; i += SWEEP_CONCURRENCY) {
    await Promise.all(
      due.slice(i, i + SWEEP_CONCURRENCY).map(async (rec) => {
        const threadId = gatewayThreadId(rec.gateway, rec.thread);
        // Held by another instance: its holder runs it (a lock attempt would fail). Under load
        // most unfinished threads are running elsewhere; asked together, this is one statement.
        if (await busy(d.coordination, threadId)) return;
        // Only a running record: a suspended turn (waiting for a decision) is at rest. Asked per
        // thread, not by listing every suspended run each time (there may be thousands).
        if (!queued.has(threadId)) {
          const saved = await p.store.runStore.get(threadId);
          if (saved && !saved.continuation) return;
        }
        await d.poke(rec.gateway, rec.thread);
      }),
    );
  }
  return due.length > 0;
}

/** Whether another instance holds the thread now, when the coordination can tell; false if asking fails. */
async function busy(coordination: Coordination, threadId: string): Promise<boolean> {
  if (!coordination.threadBusy) return false;
  try {
    return await coordination.threadBusy(threadId);
  } catch {
    return false; // the poke's own lock attempt answers then
  }
}
