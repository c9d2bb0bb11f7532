// What an instance on PostgreSQL sends to let its kept threads go once a burst is over (#45.3, at
// rest): the threads whose holds end close together give their locks back in one statement on the
// link (hold-timers.ts gathers holds ending within 500 ms), after one read of their queued records.
// On a 250 ms grid, turns ending 300 ms apart gave their locks back in two statements or more.
// The turns are meant to end 300 ms apart; on a loaded machine they may end further apart, so the
// test records when each hold began and when the timer fired, and counts against those.
import { InstanceLink } from "@agentsvc/pg-cluster";
import { postgresMissing, startPostgres } from "@agentsvc/pg-test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HoldTimers } from "../src/hold-timers.js";
import { postgresStore, watchedLocks } from "./pg-locks.js";
import { rig, until } from "./session-harness.js";

const ended: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const end of ended.splice(0).reverse()) await end();
});

/** How many timer ticks HoldTimers would need for holds begun at `starts`: groups ending within 500 ms of their first. */
function holdGroups(starts: number[]): number {
  let groups = 0;
  let first = Number.NEGATIVE_INFINITY;
  for (const at of [...starts].sort((a, b) => a - b)) {
    if (at <= first + 500) continue;
    groups++;
    first = at;
  }
  return groups;
}

/** Records each thread's last hold start and counts the ticks in which let-gos fire (fires in one tick share a tick). */
function watchHolds() {
  const starts = new Map<string, number>();
  const seen = { ticks: 0 };
  let inTick = false;
  const keep = HoldTimers.prototype.keep;
  vi.spyOn(HoldTimers.prototype, "keep").mockImplementation(function (this: HoldTimers, threadId, fire) {
    starts.set(threadId, Date.now());
    keep.call(this, threadId, () => {
      if (!inTick) {
        inTick = true;
        seen.ticks++;
        queueMicrotask(() => {
          inTick = false;
        });
      }
      fire();
    });
  });
  return { starts, seen };
}

describe.skipIf(postgresMissing)("kept threads let go after a burst, on PostgreSQL", () => {
  it("give their locks back in one statement when their holds end within 500 ms", async () => {
    const holds = watchHolds();
    const server = await startPostgres({ settings: ["shared_preload_libraries = 'pg_stat_statements'"] });
    ended.push(() => server.stop());
    const url = await server.createDatabase();
    const store = await postgresStore(url, 2);
    ended.push(store.close);
    const watch = await watchedLocks(url);
    ended.push(watch.close);
    const r = await rig({
      store: store.db,
      coordination: watch.coordination,
      threadHoldMs: 1000,
      sweepMs: 60_000,
    });
    ended.push(() => r.close());
    const stats = new InstanceLink({ connectionString: url, healthCheckMs: 0 });
    await stats.connect();
    ended.push(() => stats.close());
    await stats.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    /** Lock statements on this database so far (every thread lock request goes in one). */
    const lockStatements = async () => {
      const [row] = await stats.query<{ n: string }>(
        `SELECT coalesce(sum(s.calls), 0)::text AS n FROM pg_stat_statements s
         JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = current_database() AND s.query LIKE '%pg_advisory_unlock%'`,
      );
      return Number(row?.n ?? 0);
    };
    const threads = ["t0", "t1", "t2", "t3"];
    for (const t of threads) await r.gateway.inject({ thread: t, text: `use wait_gate ${t}`, id: `${t}-m` });
    await until(() => r.gates.calls.length === threads.length, "every turn at its gate");
    // Two turns end now, two 300 ms later: their holds end 300 ms apart.
    await r.gates.openNext();
    await r.gates.openNext();
    await until(() => r.gateway.textsTo("t0").length + r.gateway.textsTo("t1").length === 2, "two answered");
    await new Promise((resolve) => setTimeout(resolve, 300));
    r.gates.openAll();
    await until(() => threads.every((t) => r.gateway.textsTo(t).length === 1), "every turn answered");
    const locksBefore = await lockStatements();
    const heldLocks = async () =>
      (
        await stats.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1",
        )
      )[0]?.n;
    await until(async () => (await heldLocks()) === 0, "every thread let go", 10_000);
    // Counted as each statement ends (the locks went back inside it): every give-back is in by now.
    await until(async () => (await lockStatements()) > locksBefore, "the give-back counted");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const statements = (await lockStatements()) - locksBefore;
    // One statement for every tick that let threads go, and no more ticks than the gathering allows
    // (a late timer may let a later group go in the same tick): 300 ms apart, that is one.
    expect(statements).toBe(holds.seen.ticks);
    expect(holds.seen.ticks).toBeGreaterThanOrEqual(1);
    expect(holds.seen.ticks).toBeLessThanOrEqual(holdGroups([...holds.starts.values()]));
    expect(watch.refused).toEqual([]);
  }, 60_000);
});
