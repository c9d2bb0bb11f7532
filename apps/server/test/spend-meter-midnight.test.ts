// A budget's read under way at a UTC midnight (or a month's end) is shared only by calls of the same
// day and month (src/spend-meter.ts spentIn): a call just after midnight that took the read started
// just before it was checked against yesterday's sums, refused by a day budget that had reset.
// Found by spend-meter-interleave.test.ts (seed 6). Also: a call still in the open window when the
// day or month turns counts for its own period only. A real SQLite store.
import type { MeterScope } from "@agentsvc/agent-core";
import type { BudgetsConfig } from "@agentsvc/config-schema";
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { createSpendMeter } from "../src/spend-meter.js";

const BEFORE_MIDNIGHT = Date.UTC(2026, 11, 15, 23, 59, 59, 500);
const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1" };

let db: ChatDb | undefined;
afterEach(() => db?.close());

describe("a budget's read under way at midnight", () => {
  it("is not shared by a call after midnight: yesterday's spent day budget refuses only yesterday's call", async () => {
    db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-midnight-"), path: "data/agentsvc.db" });
    let now = BEFORE_MIDNIGHT - 60_000;
    const meter = createSpendMeter({
      ledger: db.usageLedger,
      budgets: { perUser: { day: { tokens: 1_000 } } },
      logger: { warn: () => {}, error: () => {} },
      now: () => now,
    });
    meter.record({
      scope: ann,
      kind: "turn",
      provider: "openai",
      modelId: "gpt-4o-mini",
      outcome: "ok",
      usage: { inputTokens: 1_000, outputTokens: 0 },
    });
    await meter.flush();
    now = BEFORE_MIDNIGHT;
    // Both asked before the store answers: the first read is under way when the second call comes.
    const yesterday = meter.admit(ann, "turn");
    now = BEFORE_MIDNIGHT + 600; // 00:00:00.100, the next UTC day
    const today = meter.admit(ann, "turn");
    expect(await yesterday).toMatchObject({ code: "budget_exceeded", resetsAt: "2026-12-16T00:00:00.000Z" });
    expect(await today).toBeUndefined();
  });
});

describe("a call not yet written when the day or month turns", () => {
  const meterAt = (budgets: BudgetsConfig) => {
    db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-midnight-"), path: "data/agentsvc.db" });
    let now = 0;
    const meter = createSpendMeter({
      ledger: db.usageLedger,
      budgets,
      logger: { warn: () => {}, error: () => {} },
      now: () => now,
      // A window that never ends by itself: its calls are still unsent at the read.
      writeWindowMs: 3_600_000,
    });
    const spend = (at: number, tokens: number) => {
      now = at;
      meter.record({
        scope: ann,
        kind: "turn",
        provider: "openai",
        modelId: "gpt-4o-mini",
        outcome: "ok",
        usage: { inputTokens: tokens, outputTokens: 0 },
      });
    };
    const admitAt = (at: number) => {
      now = at;
      return meter.admit(ann, "turn");
    };
    return { spend, admitAt };
  };
  const NEW_YEAR = Date.UTC(2027, 0, 1);

  it("counts for its own day only: yesterday's 1,000 of 1,000 do not refuse today's first call", async () => {
    const { spend, admitAt } = meterAt({ perUser: { day: { tokens: 1_000 } } });
    spend(BEFORE_MIDNIGHT, 1_000);
    expect(await admitAt(BEFORE_MIDNIGHT + 600)).toBeUndefined();
  });

  it("counts for its own month only; one at the month's first millisecond counts for it", async () => {
    const { spend, admitAt } = meterAt({ perUser: { month: { tokens: 1_000 } } });
    spend(NEW_YEAR - 100, 1_000);
    expect(await admitAt(NEW_YEAR + 100)).toBeUndefined();
    spend(NEW_YEAR, 1_000);
    expect(await admitAt(NEW_YEAR + 1_200)).toMatchObject({ code: "budget_exceeded" });
  });
});
