// The spend meter against a real SQLite store: costs at the configured prices, which budgets apply
// to a call (service, user, gateway by name or perGateway, agent), UTC day and month windows, the
// warning once per window, and a ledger write that lands before the next call is decided.
import type { MeterScope } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import type { BudgetsConfig } from "@agentsvc/config-schema";
import { afterEach, describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { costOf, createSpendMeter, periodStart } from "../src/spend-meter.js";

const NOW = Date.UTC(2026, 11, 15, 13, 30); // 2026-12-15 13:30 UTC
const DAY = 86_400_000;
const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1", gateway: "whatsapp" };
const bob: MeterScope = { agent: "bot", userId: "bob", conversationId: "c2", gateway: "telegram" };

let db: ChatDb | undefined;
afterEach(() => db?.close());

function meterWith(budgets: BudgetsConfig | undefined, now = () => NOW) {
  db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-"), path: "data/agentsvc.db" });
  const warnings: unknown[] = [];
  const events: string[] = [];
  const meter = createSpendMeter({
    ledger: db.usageLedger,
    prices: { "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 } },
    budgets,
    logger: { warn: (facts: unknown) => warnings.push(facts), error: () => {} },
    metrics: {
      observeSpend: () => {},
      observeBudget: (event, scope, period) => events.push(`${event} ${scope} ${period}`),
    },
    now,
  });
  const call = (scope: MeterScope, input: number, output: number) =>
    meter.record({
      scope,
      kind: "turn",
      provider: "openai",
      modelId: "gpt-4o-mini",
      outcome: "ok",
      usage: { inputTokens: input, outputTokens: output },
    });
  return { meter, call, warnings, events, db: db as ChatDb };
}

describe("the spend meter", () => {
  it("prices uncached input, cached input and output per million tokens, in billionths", () => {
    const tokens = {
      inputTokens: 1_000_000,
      cachedInputTokens: 400_000,
      cacheWriteInputTokens: 0,
      outputTokens: 100_000,
      reasoningTokens: 0,
    };
    // 600k x 0.15 + 400k x 0.075 + 100k x 0.6 = 0.09 + 0.03 + 0.06 = 0.18
    expect(costOf(tokens, { input: 0.15, output: 0.6, cachedInput: 0.075 })).toBe(180_000_000);
    expect(costOf(tokens, { input: 0.15, output: 0.6 })).toBe(210_000_000);
  });

  it("prices Anthropic's cache writes at cacheWriteInput, at the input price when it is absent; each input token once", () => {
    // Claude Sonnet 4.5 per million (https://docs.claude.com/en/docs/build-with-claude/prompt-caching,
    // pricing): input 3, 5-minute cache writes 3.75 (1.25x), cache reads 0.30 (0.1x), output 15.
    const sonnet = { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 };
    // input_tokens 50 + cache_creation_input_tokens 2,000 + cache_read_input_tokens 300: the whole prompt.
    const tokens = {
      inputTokens: 2_350,
      cachedInputTokens: 300,
      cacheWriteInputTokens: 2_000,
      outputTokens: 10,
      reasoningTokens: 0,
    };
    // 50 x 3 + 2,000 x 3.75 + 300 x 0.30 + 10 x 15 = 7,890 per million = 0.00789
    expect(costOf(tokens, sonnet)).toBe(7_890_000);
    // Without cacheWriteInput the write is input: 2,050 x 3 + 300 x 0.30 + 10 x 15 = 6,390.
    expect(costOf(tokens, { input: 3, output: 15, cachedInput: 0.3 })).toBe(6_390_000);
    // A count past the prompt (never reported so) is not priced twice: the write fills what the read left.
    expect(costOf({ ...tokens, cacheWriteInputTokens: 5_000 }, sonnet)).toBe(
      (2_050 * 3.75 + 300 * 0.3 + 10 * 15) * 1000,
    );
  });

  it("day and month windows start at UTC midnight and the first of the UTC month", () => {
    expect(new Date(periodStart("day", NOW)).toISOString()).toBe("2026-12-15T00:00:00.000Z");
    expect(new Date(periodStart("month", NOW)).toISOString()).toBe("2026-12-01T00:00:00.000Z");
  });

  it("records each call with its cost; with no budgets nothing is refused", async () => {
    const { meter, call, db } = meterWith(undefined);
    call(ann, 1000, 100);
    await meter.flush();
    expect(await db.usageLedger.totals({ since: 0 })).toMatchObject({
      calls: 1,
      inputTokens: 1000,
      outputTokens: 100,
      costNanos: 210_000, // 1000 x 0.15 + 100 x 0.6 per million = 0.00021
    });
    expect(await meter.admit(ann, "turn")).toBeUndefined();
  });

  it("a user's daily token budget refuses that user only, from the call that reaches it, until the next UTC midnight", async () => {
    const { meter, call } = meterWith({ perUser: { day: { tokens: 1000 } } });
    call(ann, 900, 99);
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    call(ann, 1, 0);
    const refused = await meter.admit(ann, "turn");
    expect(refused).toMatchObject({
      code: "budget_exceeded",
      resetsAt: "2026-12-16T00:00:00.000Z",
      retryAfterMs: 10.5 * 3_600_000,
    });
    expect(refused?.message).toMatch(/daily budget of this user is used up/);
    expect(await meter.admit(bob, "turn")).toBeUndefined();
  });

  it("yesterday's spend counts for the month, not the day", async () => {
    let now = NOW - DAY;
    const { meter, call } = meterWith(
      { service: { day: { cost: 0.001 }, month: { cost: 0.002 } } },
      () => now,
    );
    call(ann, 10_000, 0); // 0.0015
    await meter.flush();
    now = NOW;
    expect(await meter.admit(bob, "compaction")).toBeUndefined();
    call(bob, 4_000, 0); // 0.0006: the month reaches 0.0021
    expect(await meter.admit(bob, "turn")).toMatchObject({
      code: "budget_exceeded",
      resetsAt: "2027-01-01T00:00:00.000Z",
    });
  });

  it("a named gateway's limits replace perGateway's; the agent's apply to every gateway", async () => {
    const { meter, call } = meterWith({
      perGateway: { day: { tokens: 100 } },
      gateways: { whatsapp: { day: { tokens: 1_000 } } },
      agents: { bot: { month: { tokens: 650 } } },
    });
    call(ann, 500, 0);
    call(bob, 100, 0);
    expect(await meter.admit(ann, "turn")).toBeUndefined();
    expect((await meter.admit(bob, "turn"))?.message).toMatch(/the gateway telegram/);
    call(ann, 50, 0);
    expect((await meter.admit(ann, "turn"))?.message).toMatch(/monthly budget of the agent bot/);
  });

  it("warns once per window at warnAt, and counts warnings and refusals by scope and period", async () => {
    const { meter, call, warnings, events } = meterWith({ service: { day: { tokens: 100 } }, warnAt: 0.5 });
    call(ann, 60, 0);
    await meter.admit(ann, "turn");
    await meter.admit(ann, "turn");
    expect(warnings).toHaveLength(1);
    call(ann, 40, 0);
    await meter.admit(ann, "turn");
    expect(events).toEqual(["warning service day", "refused service day"]);
  });
});
