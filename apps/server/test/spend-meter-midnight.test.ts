// A budget's read under way at a UTC midnight (or a month's end) is shared only by calls of the same
// day and month (src/spend-meter.ts spentIn): a call just after midnight that took the read started
// just before it was checked against yesterday's sums, refused by a day budget that had reset.
// Found by spend-meter-interleave.test.ts (seed 6). A real SQLite store.
import type { MeterScope } from "@agentsvc/agent-core";
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
