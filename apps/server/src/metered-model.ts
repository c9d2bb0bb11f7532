// The model the RunManager uses when metrics are on: each streamed call is timed to the end of its
// stream and its reported tokens counted, by model id. A call ends `ok`, `error` (it threw, sent an
// error part, or its stream broke off) or `cancelled` (the run was cancelled: its signal aborted).
// Every other property is the model's own.
import type { Transformer } from "node:stream/web";
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { toUsage } from "@agentsvc/agent-core";
import type { ModelCallOutcome, ServerMetrics } from "./metrics.js";

export function meteredModel(
  model: LanguageModelV4,
  metrics: Pick<ServerMetrics, "observeModelCall">,
): LanguageModelV4 {
  const doStream: LanguageModelV4["doStream"] = async (options) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let opened: Awaited<ReturnType<LanguageModelV4["doStream"]>>;
    try {
      opened = await model.doStream(options);
    } catch (err) {
      metrics.observeModelCall(
        model.modelId,
        options.abortSignal?.aborted ? "cancelled" : "error",
        seconds(),
        {},
      );
      throw err;
    }
    let settled = false;
    const settle = (outcome: ModelCallOutcome, usage = {}) => {
      if (settled) return;
      settled = true;
      metrics.observeModelCall(model.modelId, outcome, seconds(), usage);
    };
    type Part = LanguageModelV4StreamPart;
    // `cancel` (a WHATWG Streams transformer method Node calls) is not in TypeScript's lib yet.
    const watcher: Transformer<Part, Part> & { cancel(): void } = {
      transform(part, controller) {
        if (part.type === "finish") settle("ok", toUsage(part.usage));
        else if (part.type === "error") settle("error");
        controller.enqueue(part);
      },
      flush() {
        settle("ok");
      },
      // The reader stopped early (the run was cancelled) or the stream broke off (a reset).
      cancel() {
        settle(options.abortSignal?.aborted ? "cancelled" : "error");
      },
    };
    const watch = new TransformStream<Part, Part>(watcher);
    return { ...opened, stream: opened.stream.pipeThrough(watch) };
  };
  return new Proxy(model, {
    get(target, prop) {
      if (prop === "doStream") return doStream;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
