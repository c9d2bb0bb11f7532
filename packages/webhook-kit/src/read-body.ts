// A request body read with a byte limit while it streams: a chunked body (no Content-Length)
// is refused as soon as it crosses the limit, never buffered whole first.
import type { IncomingMessage } from "node:http";
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
 * How long a body past the limit is still read and dropped (lingering close, RFC 9112 section 9.6):
 * a client still sending when the connection closes gets a reset (EPIPE / ECONNRESET) and may never
 * read the 413 already sent to it. Whichever bound comes first ends it and closes the connection.
 */
export interface DrainBound {
  /** Bytes read and dropped past the limit. */
  bytes: number;
  /** Milliseconds from the limit. */
  ms: number;
}

export const DRAIN_PAST_LIMIT: DrainBound = { bytes: 8 * 1024 * 1024, ms: 5_000 };

/**
 * `readBody` straight from a Node request's stream, without a web ReadableStream (and the fetch
 * Request it belongs to) made around it: those were most of what reading a small webhook body cost
 * (a CPU profile of the gateway's accept path). Past `limit` (or with a Content-Length over it) it
 * resolves at once (the caller answers 413 and asks to close the connection), then reads and drops
 * the rest within `drain`, so the answer can be read, and closes the connection: at the body's end
 * once the answer is sent, at the bound at once.
 */
export function readNodeBody(
  source: Readable,
  limit: number,
  drain: DrainBound = DRAIN_PAST_LIMIT,
): Promise<ReadBodyResult> {
  // A declared length over the limit is refused before a byte is read (the rest drained as below).
  const declared = Number((source as Partial<IncomingMessage>).headers?.["content-length"] ?? 0);
  if (declared > limit) {
    drainThenClose(source, drain);
    return Promise.resolve({ ok: false, reason: "too_large" });
  }
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
        done(() => resolve({ ok: false, reason: "too_large" }));
        drainThenClose(source, drain);
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

/**
 * Reads and drops what `source` (a request past its limit) still sends, within `bound`. Node's HTTP
 * server ends a `Connection: close` answer with `socket.destroySoon()`: the socket is destroyed as
 * soon as the answer is flushed, and the client's next bytes get a reset. Here that call only
 * half-closes (the answer and a FIN go out) while the body is drained; the socket is destroyed when
 * the body ends (or the client goes), or at the bound.
 */
function drainThenClose(source: Readable, bound: DrainBound): void {
  const socket = (source as Partial<IncomingMessage>).socket;
  let closeAsked = false;
  if (socket) {
    socket.destroySoon = () => {
      closeAsked = true;
      if (socket.writable) socket.end();
    };
  }
  let dropped = 0;
  const stop = () => {
    clearTimeout(timer);
    source.off("data", onData);
    source.off("end", onEnded);
    source.off("error", onEnded);
    source.off("close", onEnded);
    // Ours no more: the socket's own destroySoon again.
    if (socket) delete (socket as { destroySoon?: unknown }).destroySoon;
  };
  const cutOff = () => {
    stop();
    source.destroy();
    socket?.destroy();
  };
  const onData = (chunk: Uint8Array) => {
    dropped += chunk.byteLength;
    if (dropped > bound.bytes) cutOff();
  };
  const onEnded = () => {
    stop();
    if (closeAsked) socket?.destroySoon();
  };
  const timer = setTimeout(cutOff, bound.ms);
  source.on("data", onData);
  source.on("end", onEnded);
  source.on("error", onEnded);
  source.on("close", onEnded);
  source.resume();
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
