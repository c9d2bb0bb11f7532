// A budget's ledger read that never settles (a hung PostgreSQL: a partition without a reset) is given
// up after readTimeoutMs (src/spend-meter.ts): the admits sharing it fail as they do when the ledger
// refuses the read, the inserts due meanwhile go ahead, and the read's answer, should it come late,
// is not used. Before, the admits waited forever and the rows of every insert due meanwhile stayed
// in memory. A real SQLite ledger; the hung calls held by the test, timers on a fake clock.
import type { MeterScope } from "@agentsvc/agent-core";
import { ChatDb, MARGIN_MS, type UsageLedger } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { createSpendMeter } from "../src/spend-meter.js";

const NOW = Date.UTC(2026, 11, 15, 13, 30);
const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1", gateway: "whatsapp" };

let db: ChatDb | undefined;
afterEach(() => {
  vi.useRealTimers();
  db?.close();
  db = undefined;
});

/** Turns of the event loop enough for what a settled call sets off (setImmediate is not faked). */
async function settle() {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** How an admit ended, once it has: admitted, refused, or thrown. */
function outcomeOf(admit: Promise<unknown>) {
  const seen: { value?: string } = {};
  admit.then(
    (refusal) => {
      seen.value = refusal === undefined ? "admitted" : "refused";
    },
    (err: unknown) => {
      seen.value = `threw: ${(err as Error).message}`;
    },
  );
  return seen;
}

function meterWithHungLedger(readTimeoutMs: number) {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-hung-"), path: "data/agentsvc.db" });
  const real = db.usageLedger;
  /** Rows of each insert the meter handed to the ledger. */
  const inserts: number[] = [];
  let reads = 0;
  /** While set, a read is answered from the ledger as it is when asked, but only once released. */
  let hangReads: { release(): void; until: Promise<void> } | undefined;
  /** While set, an insert waits until released before it reaches the ledger. */
  let hangWrites: Promise<void> | undefined;
  const ledger: Pick<UsageLedger, "record" | "spendSplit"> = {
    record: async (rows) => {
      inserts.push(Array.isArray(rows) ? rows.length : 1);
      if (hangWrites) await hangWrites;
      await real.record(rows);
    },
    spendSplit: async (...args) => {
      reads++;
      const answer = await real.spendSplit(...args);
      if (hangReads) await hangReads.until;
      return answer;
    },
  };
  const errors: { facts: unknown; message: string | undefined }[] = [];
  let now = NOW;
  const meter = createSpendMeter({
    ledger,
    budgets: { perUser: { day: { tokens: 1_000 } } },
    logger: {
      warn: () => {},
      error: (facts: unknown, message?: string) => void errors.push({ facts, message }),
    },
    now: () => now,
    readTimeoutMs,
  });
  const gate = () => {
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    return { release, until };
  };
  return {
    meter,
    real,
    inserts,
    errors,
    reads: () => reads,
    spend: (tokens: number) =>
      meter.record({
        scope: ann,
        kind: "turn",
        provider: "openai",
        modelId: "gpt-4o-mini",
        outcome: "ok",
        usage: { inputTokens: tokens, outputTokens: 0 },
      }),
    /** Reads from now on hang until the returned function is called. */
    hangReads: () => {
      const g = gate();
      hangReads = g;
      return () => {
        hangReads = undefined;
        g.release();
      };
    },
    hangWrites: () => {
      const g = gate();
      hangWrites = g.until;
      return () => {
        hangWrites = undefined;
        g.release();
      };
    },
    clock: () => now,
    /** Moves the meter's clock and its timers on by `ms`. */
    later: async (ms: number) => {
      now += ms;
      await vi.advanceTimersByTimeAsync(ms);
    },
  };
}

describe("a budget's ledger read that never settles", () => {
  it("fails every admit sharing it after readTimeoutMs, and the insert due meanwhile goes ahead", async () => {
    const { meter, real, inserts, errors, spend, hangReads, later } = meterWithHungLedger(5_000);
    spend(500);
    const release = hangReads();
    const first = outcomeOf(meter.admit(ann, "turn"));
    const second = outcomeOf(meter.admit(ann, "turn"));
    // The window ends during the read: its insert waits for the read.
    await later(100);
    expect(inserts).toEqual([]);
    await later(4_899);
    expect(first.value).toBeUndefined();
    expect(inserts).toEqual([]);
    await later(1);
    const failed = "threw: the cost ledger did not answer a budget's read within 5000 ms";
    expect([first.value, second.value]).toEqual([failed, failed]);
    expect(errors).toEqual([
      {
        facts: { budget: "user", name: "ann", day: "2026-12-15T00:00:00.000Z", readTimeoutMs: 5_000 },
        message: "the cost ledger did not answer a budget's read in time: the calls waiting for it fail",
      },
    ]);
    // The insert went ahead without the read: the row is in the ledger, not in memory.
    await settle();
    expect(inserts).toEqual([1]);
    await meter.flush();
    expect((await real.totals({ since: 0 })).calls).toBe(1);
    // The ledger answers again: the next admit reads, the 500 counted once.
    release();
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    spend(500);
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });

  it("does not use the answer of a read given up: the next admit reads again and counts the row sent meanwhile", async () => {
    // Under REFRESH_MS (1 s), so a late answer, used, would still be fresh sums for the next admit.
    const { meter, inserts, spend, hangReads, later } = meterWithHungLedger(500);
    const release = hangReads();
    // The read is answered (nothing spent yet) but the answer hangs.
    const first = outcomeOf(meter.admit(ann, "turn"));
    spend(1_000);
    await later(500);
    expect(first.value).toMatch(/^threw: /);
    // The window that waited for the read is in the ledger now; the late answer predates it.
    await settle();
    expect(inserts).toEqual([1]);
    await meter.flush();
    release();
    await later(100);
    // Used, the late answer (0 spent, and no row unsent) would admit this call.
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });

  it("a read stuck behind an insert due before it is given up too, and never sent once the insert lands", async () => {
    const { meter, inserts, reads, spend, hangWrites, later } = meterWithHungLedger(5_000);
    const release = hangWrites();
    spend(500);
    await later(100);
    expect(inserts).toEqual([1]);
    const admitted = outcomeOf(meter.admit(ann, "turn"));
    await later(5_000);
    expect(admitted.value).toMatch(/^threw: the cost ledger did not answer/);
    expect(reads()).toBe(0);
    release();
    await meter.flush();
    await settle();
    expect(reads()).toBe(0);
    // A new admit reads, the landed 500 counted once.
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    expect(reads()).toBe(1);
  });

  it("an insert due during it lands before another instance's settled sums, which then count it", async () => {
    // Before, the insert waited as long as the read: held past usage-sums' MARGIN_MS, its rows (at
    // the window's time) landed behind another instance's settled cutoff and were missed there
    // until that instance's next rebase (REBASE_MS, 10 minutes).
    const a = meterWithHungLedger(10_000);
    const release = a.hangReads();
    a.spend(600);
    const admitted = outcomeOf(a.meter.admit(ann, "turn"));
    await a.later(100);
    await a.later(MARGIN_MS + 60_000);
    // Another instance, reading the ledger for the first time: its settled part ends a minute
    // after a's row.
    const b = createSpendMeter({
      ledger: a.real,
      budgets: { perUser: { day: { tokens: 1_000 } } },
      logger: { warn: () => {}, error: () => {} },
      now: a.clock,
    });
    expect(await b.admit(ann, "turn")).toBeUndefined();
    // The hung read answers at last (before, a's insert went only now).
    release();
    await a.meter.flush();
    b.record({
      scope: ann,
      kind: "turn",
      provider: "openai",
      modelId: "gpt-4o-mini",
      outcome: "ok",
      usage: { inputTokens: 500, outputTokens: 0 },
    });
    await a.later(1_000);
    // a's 600 and b's 500.
    expect(await b.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
    expect(admitted.value).toMatch(/^threw: /);
    await b.flush();
  });
});
