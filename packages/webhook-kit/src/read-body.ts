// A request body read with a byte limit while it streams: a chunked body (no Content-Length)
// is refused as soon as it crosses the limit, never buffered whole first.
import type { Readable } from "node:stream";

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
  return { ok: true, bytes: joined(chunks, size) };
}

/**
 * `readBody` straight from a Node request's stream, without a web ReadableStream (and the fetch
 * Request it belongs to) made around it: those were most of what reading a small webhook body cost
 * (a CPU profile of the gateway's accept path). Past `limit` it stops reading and pauses the
 * stream: the rest is left unread while the caller answers 413 and closes the connection.
 */
export function readNodeBody(source: Readable, limit: number): Promise<ReadBodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const done = (settle: () => void) => {
      source.off("data", onData);
      source.off("end", onEnd);
      source.off("error", onError);
      source.off("close", onClose);
      settle();
    };
    const onData = (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size > limit) {
        source.pause();
        done(() => resolve({ ok: false, reason: "too_large" }));
      } else chunks.push(chunk);
    };
    const onEnd = () => done(() => resolve({ ok: true, bytes: joined(chunks, size) }));
    const onError = (err: unknown) => done(() => reject(err));
    // Closed before its end (the client went away): the body never completes.
    const onClose = () => done(() => reject(new Error("request body: the connection closed before its end")));
    source.on("data", onData);
    source.on("end", onEnd);
    source.on("error", onError);
    source.on("close", onClose);
  });
}

function joined(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
