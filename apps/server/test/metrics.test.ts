// /metrics over real HTTP, parsed with a Prometheus text-format parser: the series move as requests,
// turns and dead letters happen. The http gateway's callback receiver refuses a reply with 400, which
// the platform rule dead-letters after one attempt.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { signatureHeaders } from "@agentsvc/gateway-http";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

const env = { HOOK_SECRET: "hook-secret", METRICS_KEY: "scrape-key" };
let root: string;
let server: RunningServer;
let receiver: Server;
let held: Promise<void> = Promise.resolve();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    // Held while a test looks at the send in flight (the sending gauge), then refused.
    req.on("end", () => void held.then(() => res.writeHead(400).end("no such recipient")));
  });
  await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", ok));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
  root = mkdtempSync(resolve(import.meta.dirname, "fixtures/.metrics-"));
  mkdirSync(join(root, "agents"));
  mkdirSync(join(root, "gateways"));
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "metrics-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `import { defineAgent, defineTool } from "@agentsvc/agent-core";
import * as v from "valibot";
// Each turn calls echo, then answers slowly (a second message of the thread queues behind it).
export default defineAgent({
  name: "ops",
  model: { provider: "demo", script: [{ toolCalls: [{ name: "echo", arguments: { say: "hi" } }] }, { text: "one two three four five six seven eight" }], tokenDelayMs: 40 },
  tools: [defineTool({ name: "echo", description: "Echoes.", input: v.object({ say: v.string() }), execute: ({ say }) => say })],
  memory: { type: "window" },
});
`,
  );
  writeFileSync(
    join(root, "gateways/hook.yaml"),
    `type: http\nsecretEnvVar: HOOK_SECRET\ncallbackUrl: ${callbackUrl}\n`,
  );
  writeFileSync(join(root, "gateways/agent.yaml"), "exposes: agent\npath: /agent\n");
  writeFileSync(
    join(root, "agentsvc.config.yaml"),
    "metrics:\n  path: /metrics\n  apiKeyEnvVar: METRICS_KEY\n",
  );
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env,
    buildDir: mkdtempSync(join(tmpdir(), "agentsvc-metrics-build-")),
    interactive: false,
  });
});

afterAll(async () => {
  await server?.shutdown();
  receiver?.closeAllConnections();
  await new Promise<void>((ok) => (receiver ? receiver.close(() => ok()) : ok()));
  if (root) rmSync(root, { recursive: true, force: true });
});

type Families = ReturnType<typeof parsePrometheusTextFormat>;

async function scrape(): Promise<Families> {
  const res = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${env.METRICS_KEY}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  // The parser folds a labelled histogram into one sample (its flattenMetrics keeps no labels), so
  // histogram TYPE lines are dropped: _bucket, _sum and _count then read as plain labelled series.
  const text = (await res.text())
    .split("\n")
    .filter((line) => !/^# TYPE \S+ histogram$/.test(line))
    .join("\n");
  return parsePrometheusTextFormat(text);
}

/** The value of one series (0 when absent); a histogram's count is its `<name>_count` series. */
function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  // A name may come back as several families: prom-client writes each label set's series together.
  const sample = families
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return Number(sample?.value ?? 0);
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("GET /metrics", () => {
  it("refuses a scrape without the API key, in constant time, and serves process metrics with it", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { "x-api-key": "scrape-kez" } });
    expect(wrong.status).toBe(401);
    const families = await scrape();
    expect(families.map((f) => f.name)).toEqual(
      expect.arrayContaining(["nodejs_eventloop_lag_seconds", "process_resident_memory_bytes"]),
    );
    expect(value(families, "agentsvc_gateway_up", { gateway: "hook" })).toBe(1);
  });

  it("counts requests by route pattern and status, and turns with their duration", async () => {
    const before = await scrape();
    const invoke = await fetch(`${server.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "count me" }),
    });
    expect(invoke.status).toBe(200);
    await invoke.text();
    expect((await fetch(`${server.url}/no/such/route/12345`)).status).toBe(404);
    const after = await scrape();
    const route = { route: "/agent/invoke", method: "POST", status: "200" };
    expect(
      value(after, "agentsvc_http_requests_total", route) -
        value(before, "agentsvc_http_requests_total", route),
    ).toBe(1);
    expect(
      value(after, "agentsvc_http_request_duration_seconds_count", {
        route: "/agent/invoke",
        method: "POST",
      }) -
        value(before, "agentsvc_http_request_duration_seconds_count", {
          route: "/agent/invoke",
          method: "POST",
        }),
    ).toBe(1);
    // A 404 is counted under one bounded label, never under the path asked for.
    expect(
      value(after, "agentsvc_http_requests_total", { route: "unmatched", status: "404" }),
    ).toBeGreaterThanOrEqual(1);
    const labels = after
      .find((f) => f.name === "agentsvc_http_requests_total")
      ?.metrics.map((m) => m.labels?.route);
    expect(labels).not.toContain("/no/such/route/12345");
    const completed = { outcome: "completed" };
    expect(
      value(after, "agentsvc_turns_total", completed) - value(before, "agentsvc_turns_total", completed),
    ).toBe(1);
    expect(
      value(after, "agentsvc_turn_duration_seconds_count", completed) -
        value(before, "agentsvc_turn_duration_seconds_count", completed),
    ).toBe(1);
  });

  it("shows a dead letter in the outbox gauge of its gateway", async () => {
    expect(value(await scrape(), "agentsvc_outbox_pieces", { gateway: "hook", status: "dead" })).toBe(0);
    const raw = JSON.stringify({ id: "e1", thread: "t1", text: "hello" });
    const res = await fetch(`${server.url}/gateways/hook/events`, {
      method: "POST",
      headers: {
        ...signatureHeaders(env.HOOK_SECRET, new TextEncoder().encode(raw)),
        "content-type": "application/json",
      },
      body: raw,
    });
    expect(res.status).toBe(202);
    await eventually(
      async () => value(await scrape(), "agentsvc_outbox_pieces", { gateway: "hook", status: "dead" }) === 1,
      "the dead letter in the gauge",
    );
    expect(value(await scrape(), "agentsvc_outbox_pieces", { gateway: "hook", status: "pending" })).toBe(0);
    // The piece is dead in the store before its send is counted as settled: wait for that too, or
    // the next test's "before" may miss this send and count it as one of its own.
    await eventually(
      async () => value(await scrape(), "agentsvc_outbox_sending", { gateway: "hook" }) === 0,
      "the send settled",
    );
  });

  it("counts gateway inbound messages by outcome, sends in flight and settled, queue depth, tool and model calls and store commits", async () => {
    const before = await scrape();
    let release: () => void = () => {};
    held = new Promise((r) => {
      release = r;
    });
    const post = (event: object, secret = env.HOOK_SECRET) => {
      const raw = JSON.stringify(event);
      return fetch(`${server.url}/gateways/hook/events`, {
        method: "POST",
        headers: {
          ...signatureHeaders(secret, new TextEncoder().encode(raw)),
          "content-type": "application/json",
        },
        body: raw,
      });
    };
    expect((await post({ id: "e2", thread: "t2", text: "first" })).status).toBe(202);
    expect((await post({ id: "e2", thread: "t2", text: "first" })).status).toBe(200);
    expect((await post({ id: "e3", thread: "t2", text: "second" })).status).toBe(202);
    expect((await post({ id: "e4", thread: "t3", text: "forged" }, "not-the-secret")).status).toBe(401);
    // e3 waits behind e2's turn on the same thread.
    await eventually(
      async () => value(await scrape(), "agentsvc_gateway_queue_depth", { gateway: "hook" }) === 1,
      "the second message of the thread queued",
    );
    // e2's reply is at the platform, which has not answered yet.
    await eventually(
      async () => value(await scrape(), "agentsvc_outbox_sending", { gateway: "hook" }) === 1,
      "a send in flight",
    );
    release();
    const dead = { gateway: "hook", outcome: "dead" };
    await eventually(
      async () =>
        value(await scrape(), "agentsvc_outbox_sends_total", dead) -
          value(before, "agentsvc_outbox_sends_total", dead) ===
        2,
      "both replies refused and dead-lettered",
    );
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(value(after, "agentsvc_outbox_sending", { gateway: "hook" })).toBe(0);
    expect(value(after, "agentsvc_gateway_queue_depth", { gateway: "hook" })).toBe(0);
    expect(moved("agentsvc_gateway_inbound_total", { gateway: "hook", outcome: "accepted" })).toBe(2);
    expect(moved("agentsvc_gateway_inbound_total", { gateway: "hook", outcome: "duplicate" })).toBe(1);
    expect(moved("agentsvc_gateway_inbound_total", { gateway: "hook", outcome: "refused" })).toBe(1);
    // Two turns, each a tool call between two model calls; each turn's end committed with its reply.
    expect(moved("agentsvc_tool_calls_total", { tool: "echo", outcome: "ok" })).toBe(2);
    expect(moved("agentsvc_model_call_duration_seconds_count", { outcome: "ok" })).toBe(4);
    // The server hands the RunManager's model attempts to the metrics (one attempt per call here).
    expect(moved("agentsvc_model_attempts_total", { outcome: "ok" })).toBe(4);
    expect(moved("agentsvc_store_commit_duration_seconds_count")).toBeGreaterThanOrEqual(2);
  });

  it("answers probes and metrics whatever Host an orchestrator uses, while other routes keep the host guard", async () => {
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number>((ok, fail) => {
        const url = new URL(path, server.url);
        request(url, { headers: { host: "10.1.2.3:3000", ...headers } }, (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        })
          .on("error", fail)
          .end();
      });
    expect(await get("/health/ready")).toBe(200);
    expect(await get("/health/live")).toBe(200);
    expect(await get("/metrics", { authorization: `Bearer ${env.METRICS_KEY}` })).toBe(200);
    expect(await get("/agent/info")).toBe(403);
  });
});

describe("metrics on a separate port", () => {
  it("listens on 127.0.0.1 only and leaves the service's app without the route", async () => {
    const { createMetrics } = await import("../src/metrics.js");
    const { Hono } = await import("hono");
    const metrics = await createMetrics({ path: "/metrics", port: 0 }, {}, pino({ level: "silent" }));
    try {
      const url = await metrics.listen();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const res = await fetch(url as string);
      expect(res.status).toBe(200);
      expect(parsePrometheusTextFormat(await res.text()).map((f) => f.name)).toContain(
        "nodejs_eventloop_lag_seconds",
      );
      const app = new Hono();
      metrics.mount(app);
      expect((await app.request("/metrics")).status).toBe(404);
    } finally {
      await metrics.close();
    }
  });
});

describe("model metrics", () => {
  it("count the tokens a provider reports in its stream's finish part, by model, and time the call", async () => {
    const { createMetrics } = await import("../src/metrics.js");
    const { meteredModel } = await import("../src/metered-model.js");
    const { Hono } = await import("hono");
    const metrics = await createMetrics({ path: "/metrics" }, {}, pino({ level: "silent" }));
    // A LanguageModelV4 as @ai-sdk/provider specifies its stream: text deltas, then `finish` with the usage.
    const model = meteredModel(
      {
        specificationVersion: "v4",
        provider: "test",
        modelId: "gpt-test",
        supportedUrls: {},
        doGenerate: () => Promise.reject(new Error("not used")),
        doStream: async () => ({
          stream: new ReadableStream({
            start(controller) {
              controller.enqueue({ type: "text-delta", id: "t", delta: "hi" });
              controller.enqueue({
                type: "finish",
                finishReason: { unified: "stop", raw: "stop" },
                usage: {
                  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: 5, text: 5, reasoning: undefined },
                },
              });
              controller.close();
            },
          }),
        }),
      },
      metrics,
    );
    expect(model.modelId).toBe("gpt-test");
    const { stream } = await model.doStream({ prompt: [] });
    for await (const _ of stream as unknown as AsyncIterable<unknown>) {
      // drained as the run loop would
    }
    const app = new Hono();
    metrics.mount(app);
    const text = (await (await app.request("/metrics")).text())
      .split("\n")
      .filter((line) => !/^# TYPE \S+ histogram$/.test(line))
      .join("\n");
    const families = parsePrometheusTextFormat(text);
    expect(value(families, "agentsvc_model_tokens_total", { model: "gpt-test", type: "input" })).toBe(12);
    expect(value(families, "agentsvc_model_tokens_total", { model: "gpt-test", type: "output" })).toBe(5);
    expect(
      value(families, "agentsvc_model_call_duration_seconds_count", { model: "gpt-test", outcome: "ok" }),
    ).toBe(1);
    await metrics.close();
  });
});
