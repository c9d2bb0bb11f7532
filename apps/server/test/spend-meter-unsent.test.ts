// A budget's read counts this instance's calls not yet in the ledger without writing them first
// (src/spend-meter.ts): the open window's rows are added to the sums read, and an insert due while
// a read is under way waits for it, so each row is counted once, read or added. Before, every read
// wrote the window first (an insert per refresh) and a call recorded during the read was missing
// from the sums until the next one. A real SQLite store; the reads held open by the test.
import type { MeterScope } from "@agentsvc/agent-core";
import { ChatDb, type UsageLedger } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { createSpendMeter } from "../src/spend-meter.js";

const NOW = Date.UTC(2026, 11, 15, 13, 30);
const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1", gateway: "whatsapp" };
const bob: MeterScope = { agent: "bot", userId: "bob", conversationId: "c2", gateway: "whatsapp" };

let db: ChatDb | undefined;
afterEach(() => db?.close());

function meterOverSqlite() {
  db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-unsent-"), path: "data/agentsvc.db" });
  const ledger = db.usageLedger;
  const inserts: number[] = [];
  /** When set, a read's answer (already read from the store) is handed back once `hold` resolves. */
  let hold: { read(): void; until: Promise<void> } | undefined;
  const counted: Pick<UsageLedger, "record" | "spendSplit"> = {
    record: async (rows) => {
      inserts.push(Array.isArray(rows) ? rows.length : 1);
      await ledger.record(rows);
    },
    spendSplit: async (...args) => {
      const answer = await ledger.spendSplit(...args);
      if (hold) {
        hold.read();
        await hold.until;
      }
      return answer;
    },
  };
  let now = NOW;
  const meter = createSpendMeter({
    ledger: counted,
    budgets: { perUser: { day: { tokens: 1_000 } } },
    logger: { warn: () => {}, error: () => {} },
    now: () => now,
    // A window that never ends by itself: only a flush (shutdown) or a full window writes it.
    writeWindowMs: 3_600_000,
  });
  const spend = (scope: MeterScope, tokens: number) =>
    meter.record({
      scope,
      kind: "turn",
      provider: "openai",
      modelId: "gpt-4o-mini",
      outcome: "ok",
      usage: { inputTokens: tokens, outputTokens: 0 },
    });
  return {
    meter,
    spend,
    inserts,
    /** Holds the next reads' answers: `read` resolves once one is read, `release` hands them back. */
    holdReads: () => {
      let read = () => {};
      let release = () => {};
      const until = new Promise<void>((resolve) => {
        release = resolve;
      });
      const done = new Promise<void>((resolve) => {
        read = resolve;
      });
      hold = { read, until };
      return {
        read: done,
        release: () => {
          hold = undefined;
          release();
        },
      };
    },
    later: (ms: number) => {
      now += ms;
    },
  };
}

describe("a budget's read and the calls not yet in the ledger", () => {
  it("counts the open window's calls without writing them: refused at 1,000 of 1,000, nothing inserted", async () => {
    const { meter, spend, inserts } = meterOverSqlite();
    spend(ann, 999);
    spend(bob, 500);
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    spend(ann, 1);
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
    // Bob's own 500 only, not Ann's.
    expect(await meter.admit(bob, "turn")).toBeUndefined();
    expect(inserts).toEqual([]);
    await meter.flush();
    expect(inserts).toEqual([3]);
  });

  it("a call recorded during a read and a window written meanwhile count once each, before and after the next read", async () => {
    const { meter, spend, inserts, holdReads, later } = meterOverSqlite();
    spend(ann, 500);
    const held = holdReads();
    const admitted = meter.admit(ann, "turn");
    await held.read;
    // During the read: another call, then the window ends (as a full one would).
    spend(ann, 499);
    const flushed = meter.flush();
    held.release();
    expect(await admitted).toBeUndefined();
    await flushed;
    expect(inserts).toEqual([2]);
    // 999 of 1,000 (the 499 neither lost nor counted twice), then the call that reaches it.
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    later(1_000);
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    spend(ann, 1);
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });

  it("a window that ends during a read is written after it, its calls in the sums the read gives: refused at 1,000 at once", async () => {
    const { meter, spend, inserts, holdReads } = meterOverSqlite();
    spend(ann, 500);
    const held = holdReads();
    const admitted = meter.admit(ann, "turn");
    await held.read;
    spend(ann, 499);
    const flushed = meter.flush();
    // The insert waits for the read: written while the read is under way, it would be in neither
    // the sums read (read before it) nor the calls not yet sent.
    await Promise.resolve();
    expect(inserts).toEqual([]);
    held.release();
    expect(await admitted).toBeUndefined();
    await flushed;
    expect(inserts).toEqual([2]);
    spend(ann, 1);
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });

  it("a call recorded during a read is in the sums it gives: refused at 1,000 before the next read", async () => {
    const { meter, spend, holdReads } = meterOverSqlite();
    spend(ann, 500);
    const held = holdReads();
    const admitted = meter.admit(ann, "turn");
    await held.read;
    spend(ann, 499);
    held.release();
    expect(await admitted).toBeUndefined();
    spend(ann, 1);
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });
});
