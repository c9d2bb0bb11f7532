// What the agent may spend, through the bundled `agentsvc start` and `agentsvc usage`: a project
// whose agent calls the testkit OpenAI fake with scripted usage, prices and a daily service budget
// in agentsvc.config. The ledger's sums equal what the fake reported; the turn after the budget is
// crossed (mid-conversation, inside a tool loop) is refused before any provider request.
import { eventually, FakeOpenAI, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBinAsync, type Served, serveBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

/** Each test: turns, CLI runs and a scrape, which a loaded machine took past vitest's 20 s default. */
const LOADED = { timeout: 60_000 };

const TOOL = `{ kind: "tool", name: "lookup", description: "Looks something up.",
  input: { type: "json-schema", schema: { type: "object", properties: { q: { type: "string" } } } },
  execute: () => ({ found: "yes" }) }`;

let fake: FakeOpenAI;
let served: Served;
let dir: string;

async function invoke(input: string) {
  const res = await fetch(`${served.url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, conversationId: "budgeted" }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  fake = await FakeOpenAI.start();
  dir = writeFiles(tempDir("agentsvc-spend-"), {
    "agents/bot.mjs": `export default { kind: "agent", name: "bot", tools: [${TOOL}],
  model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(fake.baseURL)} } };\n`,
    "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    "agentsvc.config.yaml": [
      "metrics: { path: /metrics }",
      "prices:",
      '  "openai/gpt-4o-mini": { input: 1, output: 2 }',
      "budgets:",
      "  service: { day: { tokens: 250 } }",
      "  warnAt: 0.5",
      "",
    ].join("\n"),
  });
  served = await serveBin(["start", dir, "--port", "0"], { OPENAI_API_KEY: OPENAI_TEST_KEY });
});
afterAll(async () => {
  await served?.stop();
  await fake?.close();
});

describe("budgets and the cost ledger through agentsvc start", LOADED, () => {
  it("records every call, lets a turn cross the daily budget, refuses the next with 429 budget_exceeded, and usage sums what the provider reported", async () => {
    fake.enqueue({ text: ["Hi."], usage: { input: 100, output: 20 } });
    expect((await invoke("hello")).body).toMatchObject({ success: true, output: "Hi." });

    // 120 tokens spent: this turn's second call still starts (190 < 250), and the turn ends at 275.
    fake.enqueue(
      { toolCalls: [{ name: "lookup", arguments: ['{"q":"x"}'] }], usage: { input: 60, output: 10 } },
      { text: ["Found it."], usage: { input: 80, output: 5 } },
    );
    expect((await invoke("look it up")).body).toMatchObject({ success: true, output: "Found it." });

    const before = fake.count;
    const refused = await invoke("and again");
    expect(refused.status).toBe(429);
    const error = refused.body.error as {
      code: string;
      message: string;
      retryAfterMs: number;
      resetsAt: string;
    };
    expect(error.code).toBe("budget_exceeded");
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(error.resetsAt).toBe(midnight.toISOString());
    expect(Number(refused.headers.get("retry-after"))).toBe(Math.ceil(error.retryAfterMs / 1000));
    expect(fake.count).toBe(before);

    const usage = await runBinAsync(["usage", "--dir", dir, "--json"]);
    expect(usage.code, usage.stderr).toBe(0);
    const report = JSON.parse(usage.stdout) as {
      by: string;
      rows: Record<string, unknown>[];
      total: { calls: number; inputTokens: number; outputTokens: number; cost: number };
    };
    expect(report.by).toBe("model");
    expect(report.total).toMatchObject({ calls: 3, inputTokens: 240, outputTokens: 35 });
    // (240 x 1 + 35 x 2) per million tokens
    expect(report.total.cost).toBeCloseTo(0.00031, 9);
    expect(report.rows).toEqual([expect.objectContaining({ model: "openai/gpt-4o-mini", calls: 3 })]);

    const table = await runBinAsync(["usage", "--dir", dir, "--by", "gateway", "--since", "1d"]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /^gateway\s+calls\s+input\s+cached\s+cache-write\s+output\s+reasoning\s+cost$/m,
    );
    expect(table.stdout).toMatch(/^-\s+3\s+240\s+0\s+0\s+35\s+0\s+0\.0003$/m);
    expect(table.stdout).toMatch(/^total\s+3\s+240/m);

    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    expect(metrics).toContain(
      'agentsvc_spend_tokens_total{gateway="none",model="openai/gpt-4o-mini",type="input"} 240',
    );
    expect(metrics).toContain('agentsvc_budget_events_total{event="refused",scope="service",period="day"} 1');
    expect(metrics).toContain('agentsvc_budget_events_total{event="warning",scope="service",period="day"} 1');
  });

  it("usage refuses a bad --by or --since with the forms it takes", async () => {
    const by = await runBinAsync(["usage", "--dir", dir, "--by", "day"]);
    expect(by.code).toBe(2);
    expect(by.stderr).toMatch(/--by: expected one of user, gateway, agent, model/);
    const since = await runBinAsync(["usage", "--dir", dir, "--since", "last week"]);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since: expected a date \(2026-12-01\) or a number of days \(7d\)/);
  });
});

describe("a summary's model call (compaction) through agentsvc start", LOADED, () => {
  let summaryFake: FakeOpenAI;
  let summaryServed: Served;
  let summaryDir: string;
  beforeAll(async () => {
    summaryFake = await FakeOpenAI.start();
    summaryDir = writeFiles(tempDir("agentsvc-spend-summary-"), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot",
  memory: { summaryProvider: "openai", summaryModel: "gpt-4o-mini", summaryThreshold: 2 },
  model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(summaryFake.baseURL)} } };\n`,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    });
    summaryServed = await serveBin(["start", summaryDir, "--port", "0"], { OPENAI_API_KEY: OPENAI_TEST_KEY });
  });
  afterAll(async () => {
    await summaryServed?.stop();
    await summaryFake?.close();
  });

  it("is in the ledger with the usage the provider reported, beside the turns' calls", async () => {
    const say = (input: string) =>
      fetch(`${summaryServed.url}/agent/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input, conversationId: "long" }),
        signal: AbortSignal.timeout(15_000),
      });
    summaryFake.enqueue(
      { text: ["One."], usage: { input: 10, output: 1 } },
      { text: ["Two."], usage: { input: 20, output: 2 } },
      // Past summaryThreshold after the second turn: the summary is asked for without a stream.
      { text: ["They counted."], usage: { input: 300, output: 30 } },
    );
    expect((await say("one")).status).toBe(200);
    expect((await say("two")).status).toBe(200);
    await eventually(() => summaryFake.count === 3, "the summary request");
    const total = async () => {
      const r = await runBinAsync(["usage", "--dir", summaryDir, "--json"]);
      return (JSON.parse(r.stdout) as { total: { calls: number; inputTokens: number; outputTokens: number } })
        .total;
    };
    await eventually(async () => (await total()).calls === 3, "the summary's ledger row");
    expect(await total()).toMatchObject({ calls: 3, inputTokens: 330, outputTokens: 33 });
  });
});
