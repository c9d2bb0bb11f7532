// Failed and cancelled model calls and turns are counted (by outcome, and turns by error code),
// read back through the metrics route in the Prometheus text format.
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { defineAgent, RunManager, type RunHandle, type TurnResult, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { meteredModel } from "../src/metered-model.js";
import { createMetrics, type ServerMetrics } from "../src/metrics.js";

let metrics: ServerMetrics | undefined;
afterEach(async () => {
  await metrics?.close();
  metrics = undefined;
});

async function freshMetrics(): Promise<ServerMetrics> {
  metrics = await createMetrics({ path: "/metrics" }, {}, pino({ level: "silent" }));
  return metrics;
}

/** One series' value (0 when absent); histogram TYPE lines dropped so `_count` reads as a series. */
async function series(m: ServerMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const app = new Hono();
  m.mount(app);
  const text = (await (await app.request("/metrics")).text())
    .split("\n")
    .filter((line) => !/^# TYPE \S+ histogram$/.test(line))
    .join("\n");
  const sample = parsePrometheusTextFormat(text)
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return Number(sample?.value ?? 0);
}

/** A LanguageModelV4 whose stream sends one text delta, then what `rest` does with it. */
function modelWith(rest: (controller: ReadableStreamDefaultController<LanguageModelV4StreamPart>) => void) {
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "test",
    modelId: "m-test",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "text-start", id: "t" });
          controller.enqueue({ type: "text-delta", id: "t", delta: "hi" });
          rest(controller);
        },
      }),
    }),
  };
  return model;
}

const callCount = (m: ServerMetrics, outcome: string) =>
  series(m, "agentsvc_model_call_duration_seconds_count", { model: "m-test", outcome });

describe("model calls that do not finish", () => {
  it("count a call whose run was cancelled mid-stream as cancelled", async () => {
    const m = await freshMetrics();
    // The stream would go on: the run's cancel aborts the signal and stops reading.
    const model = meteredModel(
      modelWith(() => {}),
      m,
    );
    const abort = new AbortController();
    const { stream } = await model.doStream({ prompt: [], abortSignal: abort.signal });
    const reader = stream.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel();
    expect(await callCount(m, "cancelled")).toBe(1);
    expect(await callCount(m, "ok")).toBe(0);
  });

  it("count a call whose stream broke off (a reset) as error", async () => {
    const m = await freshMetrics();
    const model = meteredModel(
      modelWith((controller) => controller.error(new TypeError("terminated: other side closed"))),
      m,
    );
    const { stream } = await model.doStream({ prompt: [] });
    const reader = stream.getReader();
    await expect(
      (async () => {
        while (!(await reader.read()).done);
      })(),
    ).rejects.toThrow(/terminated/);
    expect(await callCount(m, "error")).toBe(1);
  });
});

describe("turns that fail or are cancelled", () => {
  it("are counted by outcome and error code, an unknown code as other", async () => {
    const m = await freshMetrics();
    const failing: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: "test",
      modelId: "m-broken",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: () => Promise.reject(new Error("upstream exploded")),
    };
    const runs = new RunManager({
      agent: defineAgent({ name: "helper", model: { provider: "demo" } }),
      memory: new WindowMemory(),
      model: failing,
    });
    const user = { userId: "u", conversationId: "c" };
    const failed = runs.start({ input: "hi", ...user });
    m.observeRun(failed, performance.now());
    expect((await failed.done).error?.code).toBe("model_error");

    const slow = new RunManager({
      agent: defineAgent({ name: "helper", model: { provider: "demo", tokenDelayMs: 50 } }),
      memory: new WindowMemory(),
    });
    const cancelled = slow.start({ input: "a long enough story", ...user });
    m.observeRun(cancelled, performance.now());
    slow.cancel(cancelled.threadId, { userId: "u" });
    expect((await cancelled.done).status).toBe("cancelled");

    const odd = {
      done: Promise.resolve({
        status: "failed",
        newMessages: [],
        error: { code: "sk-secret-123", message: "x" },
      }),
    };
    m.observeRun(odd as unknown as RunHandle, performance.now());
    await (odd.done as Promise<Partial<TurnResult>>);

    const failures = (labels: Record<string, string>) => series(m, "agentsvc_turn_failures_total", labels);
    expect(await failures({ outcome: "failed", code: "model_error" })).toBe(1);
    expect(await failures({ outcome: "cancelled", code: "cancelled" })).toBe(1);
    expect(await failures({ outcome: "failed", code: "other" })).toBe(1);
    expect(await failures({ code: "sk-secret-123" })).toBe(0);
  });

  it("count model attempts by model and error code, an unknown code as other", async () => {
    const m = await freshMetrics();
    const failing: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: "test",
      modelId: "m-broken",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: () => Promise.reject(new Error("upstream exploded")),
    };
    const runs = new RunManager({
      agent: defineAgent({ name: "helper", model: { provider: "demo" } }),
      memory: new WindowMemory(),
      model: failing,
      onModelAttempt: (attempt) => m.observeModelAttempt(attempt),
    });
    const handle = runs.start({ input: "hi", userId: "u", conversationId: "c" });
    const { error } = await handle.done;
    m.observeModelAttempt({ modelId: "m-broken", outcome: "made-up-by-a-provider" });
    const attempts = (outcome: string) =>
      series(m, "agentsvc_model_attempts_total", { model: "m-broken", outcome });
    expect(error?.code).toBe("model_error");
    expect(await attempts("model_error")).toBeGreaterThanOrEqual(1);
    expect(await attempts("other")).toBe(1);
    expect(await attempts("made-up-by-a-provider")).toBe(0);
  });
});
