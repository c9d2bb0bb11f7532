// What the model layer adds to the first streamed token: time to the first content chunk of
// `/agent/stream` (agentsvc in its own process, an agent on the OpenAI provider pointed at
// testkit's FakeOpenAI) beside time to the first content chunk of the same fake called directly,
// warm, alternating one call each so drift hits both. Every agentsvc call must have made exactly
// one provider request (no hidden retry, no second call): the row says so, and the run fails if not.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FakeOpenAI, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import { startChildServer } from "./child-server.ts";
import { machineLoad } from "./proc.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const SAMPLES = Math.max(1, Number(process.env.BENCH_PROVIDER_SAMPLES ?? 300));
const WARMUP = 30;
const ANSWER = { text: ["Hel", "lo", " there"] };

/** Milliseconds from sending `init` to the first SSE event whose data holds `"content":"<non-empty>"`. */
async function firstContentMs(url: string, init: RequestInit): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, init);
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${url}: stream ended without content:\n${seen}`);
    seen += decoder.decode(value, { stream: true });
    if (/"content":"[^"]/.test(seen)) break;
  }
  const ms = performance.now() - started;
  // Read to the end: the next call starts on an idle server (and the turn is stored).
  while (!(await reader.read()).done) {}
  return ms;
}

export async function benchProviderLatency(): Promise<Row[]> {
  const fake = await FakeOpenAI.start({ fallback: ANSWER });
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-bench-provider-"));
  mkdirSync(join(dir, "agents"));
  mkdirSync(join(dir, "gateways"));
  writeFileSync(
    join(dir, "agents/bot.mjs"),
    `export default { kind: "agent", name: "bot", model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(fake.baseURL)} }, memory: { type: "window", maxMessages: 20 } };\n`,
  );
  writeFileSync(join(dir, "gateways/agent.yaml"), "exposes: agent\npath: /agent\n");
  const server = await startChildServer(resolve(import.meta.dirname, "servers/provider-route.ts"), {
    BENCH_PROJECT_DIR: dir,
    OPENAI_API_KEY: OPENAI_TEST_KEY,
  });
  const load = machineLoad();
  const direct: number[] = [];
  const route: number[] = [];
  const perCall: number[] = [];
  try {
    const directCall = () =>
      firstContentMs(`${fake.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${OPENAI_TEST_KEY}` },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: "user", content: "hello" }],
        }),
      });
    let conversation = 0;
    const routeCall = async () => {
      const before = fake.count;
      const ms = await firstContentMs(`${server.url}/agent/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "hello", conversationId: `bench-${++conversation}` }),
      });
      perCall.push(fake.count - before);
      return ms;
    };
    for (let i = 0; i < WARMUP; i++) {
      await directCall();
      await routeCall();
    }
    perCall.length = 0;
    for (let i = 0; i < SAMPLES; i++) {
      direct.push(await directCall());
      route.push(await routeCall());
    }
  } finally {
    await server.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const notOne = perCall.filter((n) => n !== 1);
  const row = (p: number): Row => {
    const ours = percentile(route, p);
    const base = percentile(direct, p);
    return {
      metric: `first content chunk p${p} ms, warm (${SAMPLES} calls each, alternating; ${load})`,
      value: fmt(ours),
      baseline: fmt(base),
      ratio: `${ours >= base ? "+" : ""}${fmt(ours - base)} ms (${fmt(ours / base)}x)`,
      target: "<= 5 ms added",
    };
  };
  const rows = [
    row(50),
    row(99),
    {
      metric: "provider requests per successful /agent/stream call",
      value:
        notOne.length === 0
          ? `1 in all ${perCall.length} calls`
          : `${notOne.length} calls made ${notOne.join(", ")}`,
      baseline: "1",
      ratio: "",
      target: "exactly 1",
    },
  ];
  if (notOne.length > 0 || perCall.length !== SAMPLES)
    throw new Error(`a successful call made other than one provider request: ${JSON.stringify(rows[2])}`);
  return rows;
}
