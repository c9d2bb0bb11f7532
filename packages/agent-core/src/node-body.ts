// A request body read from Node's own request with a byte limit, and what happens past it: every
// route that answers 413 (agent routes, chat page, MCP, webhooks, uploads) refuses through here, so
// a client that writes its whole body before reading still reads the 413 instead of a reset.
import { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { skipBodyInParser } from "./node-parser-skip.js";

export type NodeBodyResult = { ok: true; bytes: Uint8Array } | { ok: false; reason: "too_large" };

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

// The byte bound sits above what a client can have written before it reads the answer's FIN: a
// Node client flooding loopback at load 25 wrote past 9 MiB first (fresh-clone CI), and 8 MiB cut
// it off with a reset. Reading and dropping 64 MiB costs tens of ms; the time bound caps the rest.
export const DRAIN_PAST_LIMIT: DrainBound = { bytes: 64 * 1024 * 1024, ms: 5_000 };

/**
 * Node's request under @hono/node-server (a Hono context's `env` holds it as `incoming`) when nothing
 * has read its body yet; elsewhere (app.request in tests, another runtime) undefined.
 */
export function unreadNodeRequest(env: unknown): IncomingMessage | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage)) return undefined;
  return incoming.readableFlowing === null && !incoming.readableEnded ? incoming : undefined;
}

const CLOSED_EARLY = "request body: the connection closed before its end";

/**
 * Reads `source` to the end without a web stream made around it. Past `limit` (or with a
 * Content-Length over it, before a byte is read) it resolves `too_large` at once (the caller answers
 * 413 and asks to close the connection) and drains the rest (`drainPastLimit`). Rejects when the
 * stream fails or closes before its end, or was destroyed before this call.
 */
export function readNodeBody(
  source: Readable,
  limit: number,
  drain: DrainBound = DRAIN_PAST_LIMIT,
): Promise<NodeBodyResult> {
  // Already destroyed (the client hung up while the handler awaited something else): its error and
  // close events are past, and a read waiting for them would never settle.
  if (source.destroyed) return Promise.reject(source.errored ?? new Error(CLOSED_EARLY));
  const declared = Number((source as Partial<IncomingMessage>).headers?.["content-length"] ?? 0);
  if (declared > limit) {
    drainPastLimit(source, drain);
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
        drainPastLimit(source, drain);
      } else chunks.push(chunk);
    };
    const onEnd = () => done(() => resolve({ ok: true, bytes: joinChunks(chunks, size) }));
    const onError = (err: unknown) => done(() => reject(err));
    // Closed before its end (the client went away): the body never completes.
    const onClose = () => done(() => reject(new Error(CLOSED_EARLY)));
    source.on("data", onData);
    source.on("end", onEnd);
    source.on("error", onError);
    source.on("close", onClose);
  });
}

/**
 * A web stream over Node's request for a reader that may stop early (an upload refused by size or
 * type): cancelling it drains the rest (`drainPastLimit`) instead of destroying the request, which
 * resets the connection before the refusal is read.
 */
export function nodeBodyStream(
  source: Readable,
  drain: DrainBound = DRAIN_PAST_LIMIT,
): ReadableStream<Uint8Array> {
  const chunks = source.iterator({ destroyOnReturn: false });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value as Uint8Array);
      },
      async cancel() {
        await chunks.return?.();
        drainPastLimit(source, drain);
      },
    },
    { highWaterMark: 0 },
  );
}

const draining = new WeakSet<Readable>();

/**
 * Reads and drops what `source` (a request refused for its size) still sends, within `bound`. Node's
 * HTTP server ends a `Connection: close` answer with `socket.destroySoon()`: the socket is destroyed
 * as soon as the answer is flushed, and the client's next bytes get a reset. Meanwhile that call
 * only half-closes (the answer and a FIN go out); when the body ends (or the client goes) the
 * socket's previous `destroySoon` is put back (the server's lingering close sets its own) and run,
 * at the bound the socket is destroyed.
 */
export function drainPastLimit(source: Readable, bound: DrainBound = DRAIN_PAST_LIMIT): void {
  if (source.readableEnded || source.destroyed || draining.has(source)) return;
  draining.add(source);
  const socket = (source as Partial<IncomingMessage>).socket;
  const previous = socket ? Object.getOwnPropertyDescriptor(socket, "destroySoon") : undefined;
  let closeAsked = false;
  let dropped = 0;
  let restoreParser: (() => void) | undefined;
  const count = (bytes: number) => {
    dropped += bytes;
    if (dropped > bound.bytes) cutOff();
  };
  if (socket) {
    socket.destroySoon = () => {
      closeAsked = true;
      if (socket.writable) socket.end();
      // The answer is out and no other request will be read here: what is left is only dropped,
      // so the parser skips it instead of copying each piece into a Buffer (node-parser-skip.ts).
      restoreParser ??= skipBodyInParser(socket, count);
    };
  }
  const stop = () => {
    clearTimeout(timer);
    restoreParser?.();
    source.off("data", onData);
    source.off("end", onEnded);
    source.off("error", onEnded);
    source.off("close", onEnded);
    if (!socket) return;
    // Ours no more: the socket's own destroySoon again (the prototype's when it had none).
    if (previous) Object.defineProperty(socket, "destroySoon", previous);
    else delete (socket as { destroySoon?: unknown }).destroySoon;
  };
  const cutOff = () => {
    stop();
    source.destroy();
    socket?.destroy();
  };
  const onData = (chunk: Uint8Array) => count(chunk.byteLength);
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

/**
 * The bytes of `chunks` in one array, `size` their total length (a lone chunk is returned as is,
 * not copied). Shared by every bounded body reader.
 */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
