// The model the RunManager uses when metrics are on: each streamed call is timed to the end of its
// stream and its reported tokens counted, by model id. Every other property is the model's own.
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { toUsage } from "@agentsvc/agent-core";
import type { ServerMetrics } from "./metrics.js";

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
      metrics.observeModelCall(model.modelId, "error", seconds(), {});
      throw err;
    }
    let settled = false;
    const settle = (outcome: "ok" | "error", usage = {}) => {
      if (settled) return;
      settled = true;
      metrics.observeModelCall(model.modelId, outcome, seconds(), usage);
    };
    const watch = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        if (part.type === "finish") settle("ok", toUsage(part.usage));
        else if (part.type === "error") settle("error");
        controller.enqueue(part);
      },
      flush() {
        settle("ok");
      },
    });
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
