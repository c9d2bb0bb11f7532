// `prices.cachedInput` and `prices.cacheWriteInput` through the bundled `agentsvc start`: the testkit
// provider fakes report the prompt caches as the providers do (a conversation's next turn repeats
// its start: OpenAI caches it on its own, Anthropic where the request asks with `cache_control` and
// reports what it wrote apart), and the server prices the tokens read at `cachedInput` and those
// written at `cacheWriteInput`. Observable in the ledger (`agentsvc usage`), the spend metrics, and
// the budget it enforces: a turn that a budget refuses at the full input price still runs.
import {
  ANTHROPIC_TEST_KEY,
  FakeAnthropic,
  FakeOpenAI,
  OPENAI_TEST_KEY,
  type ProviderFake,
} from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { runBinAsync, type Served, serveBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

/** Each test: two or three turns, CLI runs and a scrape, which a loaded machine takes past 20 s. */
const LOADED = { timeout: 60_000 };

/** Instructions of about 1,500 of the fakes' tokens (4 characters a token): over both caches' 1,024. */
const INSTRUCTIONS = "You answer questions about the weather in one short sentence. ".repeat(95);

/** Per million tokens: cached input at a tenth of the input price, output at nothing. */
const PRICE = { input: 1000, output: 0, cachedInput: 100 };
/** Anthropic's ratios (https://docs.claude.com/en/docs/build-with-claude/prompt-caching, pricing): 5-minute cache writes 1.25x input. */
const ANTHROPIC_PRICE = { ...PRICE, cacheWriteInput: 1250 };

interface Totals {
  calls: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  cost: number;
}

const ended: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const end of ended.splice(0).reverse()) await end();
});

/** A project of one agent on `model`, priced at PRICE, served by the bin. */
async function serve(
  fake: ProviderFake,
  model: string,
  priced: string,
  env: Record<string, string>,
  config = "",
  price: Record<string, number> = PRICE,
) {
  ended.push(() => fake.close());
  const dir = writeFiles(tempDir("agentsvc-cached-prices-"), {
    "agents/bot.mjs": `export default { kind: "agent", name: "bot", instructions: ${JSON.stringify(INSTRUCTIONS)},
  model: ${model} };\n`,
    "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    "agentsvc.config.yaml": [
      "metrics: { path: /metrics }",
      "prices:",
      `  "${priced}": ${JSON.stringify(price)}`,
      config,
    ].join("\n"),
  });
  const served = await serveBin(["start", dir, "--port", "0"], env);
  ended.push(() => served.stop());
  return { dir, served };
}

async function invoke(served: Served, input: string) {
  const res = await fetch(`${served.url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, conversationId: "weather" }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function totals(dir: string): Promise<Totals> {
  const usage = await runBinAsync(["usage", "--dir", dir, "--json"]);
  expect(usage.code, usage.stderr).toBe(0);
  return (JSON.parse(usage.stdout) as { total: Totals }).total;
}

/** The cost of `t` at PRICE, with its cached tokens at `cachedPrice` and its cache writes at `writePrice`. */
const costAt = (t: Totals, cachedPrice: number, writePrice = PRICE.input) =>
  ((t.inputTokens - t.cachedInputTokens - t.cacheWriteInputTokens) * PRICE.input +
    t.cachedInputTokens * cachedPrice +
    t.cacheWriteInputTokens * writePrice +
    t.outputTokens * PRICE.output) /
  1e6;

describe("agentsvc start: prices.cachedInput on an OpenAI model", LOADED, () => {
  // Above the two turns' spend at the cached price (about 1.5 + 0.3), under it at the full price (about 3).
  const LIMIT = 2.5;

  it("counts the next turn's cached prompt at cachedInput in the ledger and the metrics, and the budget lets a turn run that the full price would have refused", async () => {
    const fake = await FakeOpenAI.start();
    const { dir, served } = await serve(
      fake,
      `{ provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(fake.baseURL)} }`,
      "openai/gpt-4o-mini",
      { OPENAI_API_KEY: OPENAI_TEST_KEY },
      `budgets:\n  service: { day: { cost: ${LIMIT} } }\n`,
    );
    expect((await invoke(served, "Rain in Oslo today?")).status).toBe(200);
    expect((await invoke(served, "And in Bergen?")).status).toBe(200);

    const two = await totals(dir);
    expect(two.calls).toBe(2);
    // The second prompt starts as the first one did: all of it but its end, in the provider's steps.
    expect(two.cachedInputTokens).toBeGreaterThanOrEqual(1024);
    expect((two.cachedInputTokens - 1024) % 128).toBe(0);
    expect(two.cost).toBeCloseTo(costAt(two, PRICE.cachedInput), 6);
    expect(two.cost).toBeLessThan(LIMIT);
    expect(costAt(two, PRICE.input)).toBeGreaterThanOrEqual(LIMIT);

    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    expect(metrics).toContain(
      `agentsvc_spend_tokens_total{gateway="none",model="openai/gpt-4o-mini",type="cached_input"} ${two.cachedInputTokens}`,
    );

    // Spent under the limit, at the cached price: the third turn runs.
    const third = await invoke(served, "And tomorrow?");
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect(fake.count).toBe(3);
  });
});

describe(
  "agentsvc start: prices.cachedInput and cacheWriteInput on an Anthropic model asking for caching",
  LOADED,
  () => {
    it("counts the cache write at cacheWriteInput and the next turn's cache read at cachedInput, in the ledger and the metrics", async () => {
      const fake = await FakeAnthropic.start();
      const { dir, served } = await serve(
        fake,
        `{ provider: "anthropic", model: "claude-sonnet-4-5", baseURL: ${JSON.stringify(fake.baseURL)},
    settings: { providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } } }`,
        "anthropic/claude-sonnet-4-5",
        { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY },
        "",
        ANTHROPIC_PRICE,
      );
      expect((await invoke(served, "Rain in Oslo today?")).status).toBe(200);
      const one = await totals(dir);
      // The whole first prompt written to the cache (Anthropic's input_tokens 0 beside it), nothing read.
      expect(one).toMatchObject({ calls: 1, cachedInputTokens: 0 });
      expect(one.cacheWriteInputTokens).toBeGreaterThan(1024);
      expect(one.cacheWriteInputTokens).toBe(one.inputTokens);
      expect(one.cost).toBeCloseTo(costAt(one, PRICE.cachedInput, ANTHROPIC_PRICE.cacheWriteInput), 6);
      expect(one.cost).toBeGreaterThan(costAt(one, PRICE.input, PRICE.input));

      expect((await invoke(served, "And in Bergen?")).status).toBe(200);
      const two = await totals(dir);
      expect(two.calls).toBe(2);
      // The first turn's whole prompt, written then, read now; the rest of the conversation written now.
      expect(two.cachedInputTokens).toBe(one.cacheWriteInputTokens);
      expect(two.cacheWriteInputTokens).toBeGreaterThan(one.cacheWriteInputTokens);
      expect(two.cost).toBeCloseTo(costAt(two, PRICE.cachedInput, ANTHROPIC_PRICE.cacheWriteInput), 6);

      const metrics = await (await fetch(`${served.url}/metrics`)).text();
      const series = `agentsvc_spend_tokens_total{gateway="none",model="anthropic/claude-sonnet-4-5"`;
      expect(metrics).toContain(`${series},type="cache_write_input"} ${two.cacheWriteInputTokens}`);
      expect(metrics).toContain(`${series},type="cached_input"} ${two.cachedInputTokens}`);
    });
  },
);
