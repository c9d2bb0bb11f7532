import type { RunEvent, RunHandle } from "@agentsvc/agent-core";
import type { Context } from "hono";

/**
 * Writes a run as SSE: `thread` (the threadId, id = `after`), one `chunk` per event (id = seq),
 * `error` when the turn failed, then `done` (`[DONE]`, id = last seq). The run is persisted
 * before its events end, so `done` always follows persistence. A client that goes away stops
 * the writer only; the run goes on (disconnect is not cancel).
 *
 * Events already buffered when the writer gets to them go out in one write: a fast model fills
 * the log faster than a writer that awaits every event (through Hono's streamSSE and its
 * TransformStream) can drain it, which delayed the first chunk until the whole turn was written.
 */
export function streamRun(c: Context, handle: RunHandle, options: { after?: number } = {}): Response {
  const after = options.after ?? firstAfter(handle);
  const encoder = new TextEncoder();
  const batches = eventBatches(handle, after)[Symbol.asyncIterator]();
  let lastId = after;
  let stopped = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(frame("thread", handle.threadId, after)));
    },
    async pull(controller) {
      const next = await batches.next();
      if (stopped) return;
      if (!next.done) {
        let text = "";
        for (const event of next.value) {
          text += frame("chunk", JSON.stringify(event.chunk), event.seq);
          lastId = event.seq;
        }
        controller.enqueue(encoder.encode(text));
        return;
      }
      const result = await handle.done;
      if (stopped) return;
      let text = "";
      if (result.error) text += frame("error", JSON.stringify(result.error), lastId);
      text += frame("done", "[DONE]", lastId);
      controller.enqueue(encoder.encode(text));
      controller.close();
    },
    cancel() {
      // The client went away: stop writing; the run itself goes on.
      stopped = true;
      void batches.return?.(undefined);
    },
  });
  c.header("X-Thread-Id", handle.threadId);
  c.header("X-Accel-Buffering", "no");
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  c.header("Connection", "keep-alive");
  // Marks the body as streamed, so the Node adapter sends headers at once instead of reading ahead.
  c.header("Transfer-Encoding", "chunked");
  return c.body(body);
}

/** One SSE message; every line of `data` gets its own `data:` field. */
function frame(event: string, data: string, id: number): string {
  const lines = /[\r\n]/.test(data) ? data.split(/\r\n|\r|\n/).join("\ndata: ") : data;
  return `event: ${event}\ndata: ${lines}\nid: ${id}\n\n`;
}

/** Buffered events in batches when the handle can give them (RunSegment), else one by one. */
function eventBatches(handle: RunHandle, after: number): AsyncIterable<RunEvent[]> {
  const batched = (handle as { batches?: (after: number) => AsyncIterable<RunEvent[]> }).batches;
  if (typeof batched === "function") return batched.call(handle, after);
  return (async function* () {
    for await (const event of handle.events(after)) yield [event];
  })();
}

function firstAfter(handle: RunHandle): number {
  const first = (handle as { firstSeq?: unknown }).firstSeq;
  return typeof first === "number" ? first - 1 : 0;
}
