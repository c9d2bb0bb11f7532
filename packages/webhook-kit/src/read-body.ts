// A request body read with a byte limit while it streams: a chunked body (no Content-Length)
// is refused as soon as it crosses the limit, never buffered whole first.
import { joinChunks } from "@agentsvc/agent-core";

export type ReadBodyResult = { ok: true; bytes: Uint8Array } | { ok: false; reason: "too_large" };

/**
 * Reads `source` to the end, or stops as soon as more than `limit` bytes arrived and cancels the
 * stream (the caller answers 413 and closes the connection). `null` (no body) reads as empty.
 */
export async function readBody(
  source: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<ReadBodyResult> {
  if (!source) return { ok: true, bytes: new Uint8Array() };
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: a source may take its time to tear down, the refusal should not wait for it.
      reader.cancel("body too large").catch(() => {});
      return { ok: false, reason: "too_large" };
    }
    chunks.push(value);
  }
  return { ok: true, bytes: joinChunks(chunks, size) };
}

// Node's request read directly, and the drain past the limit, live in agent-core: the agent routes,
// the chat page and MCP refuse through the same piece.
export { DRAIN_PAST_LIMIT, type DrainBound, readNodeBody } from "@agentsvc/agent-core";
