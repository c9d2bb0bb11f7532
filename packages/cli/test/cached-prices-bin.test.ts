// `prices.cachedInput` through the bundled `agentsvc start`: the testkit provider fakes report the
// prompt caches as the providers do (a conversation's next turn repeats its start: OpenAI caches it
// on its own, Anthropic where the request asks with `cache_control`), and the server prices those
// tokens at `cachedInput`. Observable in the ledger (`agentsvc usage`), the spend metrics, and the
// budget it enforces: a turn that a budget refuses at the full input price still runs.
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

interface Totals {
  calls: number;
  inputTokens: number;
  cachedInputTokens: number;
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
) {
  ended.push(() => fake.close());
  const dir = writeFiles(tempDir("agentsvc-cached-prices-"), {
    "agents/bot.mjs": `export default { kind: "agent", name: "bot", instructions: ${JSON.stringify(INSTRUCTIONS)},
  model: ${model} };\n`,
    "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    "agentsvc.config.yaml": [
      "metrics: { path: /metrics }",
      "prices:",
      `  "${priced}": ${JSON.stringify(PRICE)}`,
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

/** The cost of `t` at PRICE, with its cached tokens at `cachedPrice`. */
const costAt = (t: Totals, cachedPrice: number) =>
  ((t.inputTokens - t.cachedInputTokens) * PRICE.input +
    t.cachedInputTokens * cachedPrice +
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

describe("agentsvc start: prices.cachedInput on an Anthropic model asking for caching", LOADED, () => {
  it("counts the cache read at cachedInput; the cache write, part of the input, at the input price", async () => {
    const fake = await FakeAnthropic.start();
    const { dir, served } = await serve(
      fake,
      `{ provider: "anthropic", model: "claude-sonnet-4-5", baseURL: ${JSON.stringify(fake.baseURL)},
    settings: { providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } } }`,
      "anthropic/claude-sonnet-4-5",
      { ANTHROPIC_API_KEY: ANTHROPIC_TEST_KEY },
    );
    expect((await invoke(served, "Rain in Oslo today?")).status).toBe(200);
    const one = await totals(dir);
    expect(one).toMatchObject({ calls: 1, cachedInputTokens: 0 });
    expect(one.inputTokens).toBeGreaterThan(1024);
    expect(one.cost).toBeCloseTo(costAt(one, PRICE.input), 6);

    expect((await invoke(served, "And in Bergen?")).status).toBe(200);
    const two = await totals(dir);
    expect(two.calls).toBe(2);
    // The first turn's whole prompt, written then, read now.
    expect(two.cachedInputTokens).toBeGreaterThan(1024);
    expect(two.cost).toBeCloseTo(costAt(two, PRICE.cachedInput), 6);
    expect(two.cost).toBeLessThan(costAt(two, PRICE.input));
  });
});
