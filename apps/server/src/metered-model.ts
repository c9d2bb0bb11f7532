// The model the RunManager uses when metrics are on: each streamed call is timed to the end of its
// stream and its reported tokens counted, by model id. Every other property is the model's own.
import type { LanguageModelV2, LanguageModelV2StreamPart } from "@ai-sdk/provider";
import type { ServerMetrics } from "./metrics.js";

export function meteredModel(
  model: LanguageModelV2,
  metrics: Pick<ServerMetrics, "observeModelCall">,
): LanguageModelV2 {
  const doStream: LanguageModelV2["doStream"] = async (options) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let opened: Awaited<ReturnType<LanguageModelV2["doStream"]>>;
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
    const watch = new TransformStream<LanguageModelV2StreamPart, LanguageModelV2StreamPart>({
      transform(part, controller) {
        if (part.type === "finish") settle("ok", part.usage);
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
