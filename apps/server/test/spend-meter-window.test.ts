// The spend meter's write window (#45.3): rows of calls that end within it share one ledger
// insert, whatever turn of the event loop each ended in; a flush (shutdown) or a full window writes
// at once, and a window left alone is written when it ends.
import type { MeterScope } from "@agentsvc/agent-core";
import type { UsageEntry } from "@agentsvc/chat-store";
import { describe, expect, it, vi } from "vitest";
import { createSpendMeter } from "../src/spend-meter.js";

const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1" };

function meterWith(writeWindowMs: number) {
  const inserts: UsageEntry[][] = [];
  const meter = createSpendMeter({
    ledger: {
      record: async (rows) => {
        inserts.push(Array.isArray(rows) ? rows : [rows]);
      },
      spendSplit: async () => {
        const none = { day: { tokens: 0, costNanos: 0 }, month: { tokens: 0, costNanos: 0 } };
        return { settled: none, recent: none };
      },
    },
    logger: { warn: () => {}, error: () => {} },
    writeWindowMs,
  });
  const call = () =>
    meter.record({
      scope: ann,
      kind: "turn",
      provider: "openai",
      modelId: "gpt-4o-mini",
      outcome: "ok",
      usage: { inputTokens: 10, outputTokens: 1 },
    });
  return { meter, call, inserts };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("the spend meter's write window", () => {
  it("calls ending in different turns of the event loop within the window share one insert, written by flush", async () => {
    const { meter, call, inserts } = meterWith(60_000);
    call();
    await nextTurn();
    await nextTurn();
    call();
    await nextTurn();
    expect(inserts).toEqual([]);
    await meter.flush();
    expect(inserts.map((rows) => rows.length)).toEqual([2]);
  });

  it("a window nobody flushes is written when it ends", async () => {
    const { call, inserts } = meterWith(5);
    call();
    await vi.waitFor(() => expect(inserts.map((rows) => rows.length)).toEqual([1]));
  });

  it("a full window (500 rows) is written without waiting for its end", async () => {
    const { call, inserts } = meterWith(60_000);
    for (let i = 0; i < 500; i++) call();
    await vi.waitFor(() => expect(inserts.map((rows) => rows.length)).toEqual([500]));
  });

  it("a call after a written window opens the next one", async () => {
    const { meter, call, inserts } = meterWith(60_000);
    call();
    await meter.flush();
    call();
    call();
    await meter.flush();
    expect(inserts.map((rows) => rows.length)).toEqual([1, 2]);
  });
});
