import type { RunHandle } from "@agentsvc/agent-core";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";

/**
 * Writes a run as SSE: `thread` (the threadId, id = `after`), one `chunk` per event (id = seq),
 * `error` when the turn failed, then `done` (`[DONE]`, id = last seq). The run is persisted
 * before its events end, so `done` always follows persistence. A client that goes away stops
 * the writer only; the run goes on (disconnect is not cancel).
 */
export function streamRun(c: Context, handle: RunHandle, options: { after?: number } = {}): Response {
  const after = options.after ?? firstAfter(handle);
  c.header("X-Thread-Id", handle.threadId);
  c.header("X-Accel-Buffering", "no");
  c.header("Cache-Control", "no-cache");
  return streamSSE(c, async (stream) => {
    let lastId = after;
    await stream.writeSSE({ event: "thread", data: handle.threadId, id: String(after) });
    for await (const event of handle.events(after)) {
      if (stream.aborted) return;
      await stream.writeSSE({ event: "chunk", data: JSON.stringify(event.chunk), id: String(event.seq) });
      lastId = event.seq;
    }
    if (stream.aborted) return;
    const result = await handle.done;
    if (result.error)
      await stream.writeSSE({ event: "error", data: JSON.stringify(result.error), id: String(lastId) });
    await stream.writeSSE({ event: "done", data: "[DONE]", id: String(lastId) });
  });
}

function firstAfter(handle: RunHandle): number {
  const first = (handle as { firstSeq?: unknown }).firstSeq;
  return typeof first === "number" ? first - 1 : 0;
}
