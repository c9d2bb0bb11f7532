// Anthropic's prompt-cache writes through the composed server: the agent route on real HTTP, the
// real @ai-sdk/anthropic provider against testkit's FakeAnthropic, the cost ledger in the project's
// SQLite store and /metrics. Anthropic bills a cache write above the input price (1.25x for the
// 5-minute cache) and a cache read at 0.1x, and its `input_tokens` leaves both out
// (https://docs.claude.com/en/docs/build-with-claude/prompt-caching, pricing and "Tracking cache
// performance"); with `cacheWriteInput` set, the ledger prices each part at its own price.
import type { ChatDb, UsageTotals } from "@agentsvc/chat-store";
import { ANTHROPIC_TEST_KEY, eventually, FakeAnthropic } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "./project-server.js";

// Claude Sonnet 4.5 per million tokens, from the prompt-caching page's pricing table.
const PRICE = { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 };
/** Instructions of about 1,500 of the fake's tokens (4 characters a token): over the cache's 1,024. */
const INSTRUCTIONS = "You answer questions about the weather in one short sentence. ".repeat(95);

let project: ProjectServer;
let fake: FakeAnthropic;
let db: ChatDb;

beforeAll(async () => {
  fake = await FakeAnthropic.start();
  project = await startProjectServer("spend-cache-writes", {
    files: {
      // The AI SDK's providerOptions.anthropic.cacheControl asks Anthropic to cache the whole prompt.
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", instructions: ${JSON.stringify(INSTRUCTIONS)},
  model: { provider: "anthropic", model: "claude-sonnet-4-5", baseURL: ${JSON.stringify(fake.baseURL)},
    settings: { providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } } } };\n`,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agentsvc.config.yaml": [
        "metrics: { path: /metrics }",
        "prices:",
        `  "anthropic/claude-sonnet-4-5": ${JSON.stringify(PRICE)}`,
        "",
      ].join("\n"),
    },
    env: { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY },
  });
  db = project.openStore();
});

afterAll(async () => {
  db?.close();
  await project?.close();
  await fake?.close();
});

async function invoke(input: string, conversationId: string) {
  const res = await fetch(`${project.server.url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, conversationId }),
    signal: AbortSignal.timeout(30_000),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { usage?: Record<string, number> };
}

/** The ledger's sums once it holds `calls` rows (the meter writes them in a short window). */
async function ledgerAt(calls: number): Promise<UsageTotals> {
  await eventually(
    async () => (await db.usageLedger.totals({ since: 0 })).calls >= calls,
    `${calls} ledger rows`,
    30_000,
  );
  return db.usageLedger.totals({ since: 0 });
}

/** What `t` costs at PRICE, each input part at its price, in billionths (the ledger's unit). */
const nanosAt = (t: Omit<UsageTotals, "calls" | "costNanos" | "reasoningTokens">) =>
  Math.round(
    ((t.inputTokens - t.cachedInputTokens - t.cacheWriteInputTokens) * PRICE.input +
      t.cachedInputTokens * PRICE.cachedInput +
      t.cacheWriteInputTokens * PRICE.cacheWriteInput +
      t.outputTokens * PRICE.output) *
      1000,
  );

/** The tokens of each kind the ledger gained from `from` to `to`. */
const spentBetween = (from: UsageTotals, to: UsageTotals) => ({
  inputTokens: to.inputTokens - from.inputTokens,
  cachedInputTokens: to.cachedInputTokens - from.cachedInputTokens,
  cacheWriteInputTokens: to.cacheWriteInputTokens - from.cacheWriteInputTokens,
  outputTokens: to.outputTokens - from.outputTokens,
});

async function metric(type: string): Promise<string | undefined> {
  const text = await (await fetch(`${project.server.url}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) =>
      l.startsWith(
        `agentsvc_spend_tokens_total{gateway="none",model="anthropic/claude-sonnet-4-5",type="${type}"}`,
      ),
    );
  return line?.split(" ").at(-1);
}

describe("Anthropic prompt-cache writes in the cost ledger", () => {
  it("a call reporting 50 uncached, 2,000 written and 300 read input tokens costs what the pricing table says, in the answer's usage, the ledger and the metrics", async () => {
    fake.enqueue({ text: ["Rain."], usage: { input: 2_350, cached: 300, cacheWrite: 2_000, output: 10 } });
    const answer = await invoke("Rain in Oslo?", "scripted");
    expect(answer.usage).toMatchObject({
      inputTokens: 2_350,
      cachedInputTokens: 300,
      cacheWriteInputTokens: 2_000,
    });
    const ledger = await ledgerAt(1);
    expect(ledger).toMatchObject({
      inputTokens: 2_350,
      cachedInputTokens: 300,
      cacheWriteInputTokens: 2_000,
    });
    // 50 x 3 + 2,000 x 3.75 + 300 x 0.30 + 10 x 15 = 7,890 per million: $0.00789.
    expect(ledger.costNanos).toBe(7_890_000);
    expect(await metric("cache_write_input")).toBe("2000");
    expect(await metric("cached_input")).toBe("300");
  });

  it("a conversation's first turn writes its prompt to the cache at cacheWriteInput, the next reads it at cachedInput", async () => {
    const before = await ledgerAt(1);
    await invoke("Rain in Bergen today?", "weather");
    const one = await ledgerAt(before.calls + 1);
    const first = spentBetween(before, one);
    // The whole prompt (instructions and question) written, nothing read, nothing left uncached.
    expect(first.cacheWriteInputTokens).toBeGreaterThan(1024);
    expect(first.cachedInputTokens).toBe(0);
    expect(first.cacheWriteInputTokens).toBe(first.inputTokens);
    expect(one.costNanos - before.costNanos).toBe(nanosAt(first));
    // 1.25x the input price for the written part: more than plain input would have cost.
    expect(one.costNanos - before.costNanos).toBeGreaterThan(
      Math.round((first.inputTokens * PRICE.input + first.outputTokens * PRICE.output) * 1000),
    );

    await invoke("And tomorrow?", "weather");
    const two = await ledgerAt(before.calls + 2);
    const second = spentBetween(one, two);
    // The first turn's prompt read back, the rest of the conversation written for the next turn.
    expect(second.cachedInputTokens).toBe(first.cacheWriteInputTokens);
    expect(second.cachedInputTokens + second.cacheWriteInputTokens).toBeLessThanOrEqual(second.inputTokens);
    expect(two.costNanos - one.costNanos).toBe(nanosAt(second));
  });
});
