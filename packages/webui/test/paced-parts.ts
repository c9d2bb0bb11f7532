// The demo model with the time each stream part left it recorded, and how many writes a stream
// writer coalescing within a window could need at most for parts that arrived at those times.
import { createDemoModel, type DemoModelOptions } from "@agentsvc/agent-core";

/** `createDemoModel(options)`, noting `performance.now()` as each part of a stream passes. */
export function pacedDemoModel(options: DemoModelOptions) {
  const demo = createDemoModel(options);
  const times: number[] = [];
  const model = Object.assign(Object.create(demo) as typeof demo, {
    doStream: async (call: Parameters<typeof demo.doStream>[0]) => {
      const result = await demo.doStream(call);
      const noted = new TransformStream<unknown, unknown>({
        transform(part, out) {
          times.push(performance.now());
          out.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(noted) as typeof result.stream };
    },
  });
  return { model, times };
}

/**
 * The writes a writer makes for events arriving at `times` when it sends an event at once only
 * `windowMs` after its last write, and holds the ones before that for one write at the window's end
 * (sse.ts's SseFeed; the last event ends the run and goes out at once). A writer whose timers fire
 * late holds more in each write, never less.
 */
export function coalescedWrites(times: readonly number[], windowMs: number): number {
  let writes = 0;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let holdUntil: number | undefined;
  for (const at of times) {
    if (holdUntil !== undefined) {
      if (at < holdUntil) continue;
      writes++;
      lastWrite = holdUntil;
      holdUntil = undefined;
    }
    if (at >= lastWrite + windowMs) {
      writes++;
      lastWrite = at;
    } else holdUntil = lastWrite + windowMs;
  }
  return holdUntil === undefined ? writes : writes + 1;
}
