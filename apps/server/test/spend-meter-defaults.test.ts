// The spend meter's defaults and edges (src/spend-meter.ts) that its other unit tests leave to the
// app-level tests (spend-runs, spend-cache-writes: those load the packages' dist, which a mutation
// run's sandbox lacks): the 100 ms write window, a model without a price, the metrics' labels, a
// cost limit of 0, the default warning at 80%.
import type { MeterScope } from "@agentsvc/agent-core";
import type { UsageEntry } from "@agentsvc/chat-store";
import type { BudgetsConfig } from "@agentsvc/config-schema";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSpendMeter } from "../src/spend-meter.js";

const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1" };
const none = { day: { tokens: 0, costNanos: 0 }, month: { tokens: 0, costNanos: 0 } };

afterEach(() => vi.useRealTimers());

function meterWith(budgets?: BudgetsConfig) {
  const inserts: UsageEntry[][] = [];
  const warnings: [unknown, string | undefined][] = [];
  const spends: unknown[] = [];
  const meter = createSpendMeter({
    ledger: {
      record: async (rows) => {
        inserts.push(Array.isArray(rows) ? rows : [rows]);
      },
      spendSplit: async () => ({ settled: none, recent: none }),
    },
    prices: { "openai/gpt-4o-mini": { input: 1, output: 2 } },
    budgets,
    logger: { warn: (facts: unknown, message?: string) => warnings.push([facts, message]), error: () => {} },
    metrics: {
      observeSpend: (labels, _usage, costNanos) => spends.push({ ...labels, costNanos }),
      observeBudget: () => {},
    },
  });
  const call = (modelId: string, input: number, scope: MeterScope = ann) =>
    meter.record({
      scope,
      kind: "turn",
      provider: "openai",
      modelId,
      outcome: "ok",
      usage: { inputTokens: input, outputTokens: 0 },
    });
  return { meter, call, inserts, warnings, spends };
}

describe("the spend meter's defaults", () => {
  it("a window without writeWindowMs is written 100 ms after its first call", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { call, inserts } = meterWith();
    call("gpt-4o-mini", 10);
    await vi.advanceTimersByTimeAsync(99);
    expect(inserts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(inserts.map((rows) => rows.length)).toEqual([1]);
  });

  it("a model without a price costs 0 and is named in one warning, however many calls it makes", async () => {
    const { meter, call, inserts, warnings } = meterWith();
    call("gpt-unknown", 1_000);
    call("gpt-unknown", 1_000);
    await meter.flush();
    expect(inserts.flat().map((row) => row.costNanos)).toEqual([0, 0]);
    expect(warnings).toEqual([
      [
        { model: "openai/gpt-unknown" },
        "no price for this model in agentsvc.config prices: its cost counts as 0",
      ],
    ]);
  });

  it("metrics hear each call's gateway ('none' without one), provider/model and cost", async () => {
    const { meter, call, spends } = meterWith();
    call("gpt-4o-mini", 1_000);
    call("gpt-4o-mini", 10, { ...ann, gateway: "whatsapp" });
    await meter.flush();
    expect(spends).toEqual([
      { gateway: "none", model: "openai/gpt-4o-mini", costNanos: 1_000_000 },
      { gateway: "whatsapp", model: "openai/gpt-4o-mini", costNanos: 10_000 },
    ]);
  });

  it("a cost limit of 0 refuses the first call, before any spend", async () => {
    const { meter } = meterWith({ service: { month: { cost: 0 } } });
    expect(await meter.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });

  it("warns at 80% of a limit when warnAt is not set, not below", async () => {
    const { meter, call, warnings } = meterWith({ perUser: { day: { tokens: 100 } } });
    call("gpt-4o-mini", 79);
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    expect(warnings).toEqual([]);
    call("gpt-4o-mini", 1);
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    expect(warnings).toEqual([
      [
        {
          budget: "user",
          name: "ann",
          period: "day",
          tokens: 80,
          cost: 80_000 / 1e9,
          limit: { tokens: 100 },
          warnAt: 0.8,
        },
        "budget nearly spent",
      ],
    ]);
  });
});
