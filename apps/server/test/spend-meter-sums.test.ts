// A budget's sum (src/spend-meter.ts): read from the ledger at most once a second, this instance's
// own calls added to it as they are recorded, another instance's seen from the next read. Two
// meters over one real SQLite store stand for two instances.
import type { MeterScope } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { createSpendMeter } from "../src/spend-meter.js";

const NOW = Date.UTC(2026, 11, 15, 13, 30);
const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1", gateway: "whatsapp" };

let db: ChatDb | undefined;
afterEach(() => db?.close());

function instances() {
  db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-sums-"), path: "data/agentsvc.db" });
  const ledger = db.usageLedger;
  let reads = 0;
  const counted = {
    record: ledger.record.bind(ledger),
    spendSplit: (...args: Parameters<typeof ledger.spendSplit>) => {
      reads++;
      return ledger.spendSplit(...args);
    },
  };
  let now = NOW;
  const meter = (read: typeof counted) =>
    createSpendMeter({
      ledger: read,
      budgets: { perUser: { day: { tokens: 1000 } } },
      logger: { warn: () => {}, error: () => {} },
      now: () => now,
    });
  const call = (tokens: number) => ({
    scope: ann,
    kind: "turn" as const,
    provider: "openai",
    modelId: "gpt-4o-mini",
    outcome: "ok",
    usage: { inputTokens: tokens, outputTokens: 0 },
  });
  return {
    here: meter(counted),
    other: meter(ledger),
    call,
    reads: () => reads,
    at: (ms: number) => {
      now = NOW + ms;
    },
  };
}

describe("a budget's sum", () => {
  it("is read once a second; another instance's spend counts from the next read", async () => {
    const { here, other, call, reads, at } = instances();
    expect(await here.admit(ann, "turn")).toBeUndefined();
    expect(await here.admit(ann, "turn")).toBeUndefined();
    expect(reads()).toBe(1);
    other.record(call(1000));
    await other.flush();
    at(999);
    expect(await here.admit(ann, "turn")).toBeUndefined();
    expect(reads()).toBe(1);
    at(1000);
    expect(await here.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
    expect(reads()).toBe(2);
  });

  it("counts this instance's own calls at once, without reading the ledger again", async () => {
    const { here, call, reads } = instances();
    expect(await here.admit(ann, "turn")).toBeUndefined();
    here.record(call(999));
    expect(await here.admit(ann, "turn")).toBeUndefined();
    here.record(call(1));
    expect(await here.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
    expect(reads()).toBe(1);
  });

  it("calls asking at once share one read", async () => {
    const { here, reads } = instances();
    const answers = await Promise.all([1, 2, 3].map(() => here.admit(ann, "turn")));
    expect(answers).toEqual([undefined, undefined, undefined]);
    expect(reads()).toBe(1);
  });
});
