import type { ChunkEnvelope, RunEvent, RunHandle } from "@agentsvc/agent-core";
import type { Context } from "hono";

/**
 * Frames as bytes. `Buffer.from` copies a short string into a slice of Node's shared pool, where
 * `TextEncoder.encode` gave every frame an ArrayBuffer (and a backing store) of its own.
 */
const bytes = (text: string): Uint8Array => Buffer.from(text, "utf8");

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
  const cursor = cursorOf(handle, after);
  const chunkJson = cursor.envelopes ? envelopeJson() : (chunk: unknown) => JSON.stringify(chunk);
  let lastId = after;
  let stopped = false;
  let waiting = false;
  let finishing = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // The stream's one wake-up callback: the log calls it at its next event, so a stream waiting
  // for a slow token holds an entry in the log's waiter list, not a suspended function and its
  // promises. It writes what is buffered; the next pull (the reader wants more) writes again.
  const write = () => {
    waiting = false;
    if (stopped || finishing) return;
    const batch = cursor.take();
    if (batch.length > 0) {
      let text = "";
      for (const event of batch) {
        // JSON text never holds a raw line break, so the chunk's data is one `data:` line.
        text += `event: chunk\ndata: ${chunkJson(event.chunk)}\nid: ${event.seq}\n\n`;
        lastId = event.seq;
      }
      controller.enqueue(bytes(text));
      return;
    }
    if (!cursor.ended) {
      waiting = true;
      cursor.wake(write);
      return;
    }
    finishing = true;
    cursor.close();
    void handle.done.then((result) => {
      if (stopped) return;
      let text = "";
      if (result.error) text += frame("error", JSON.stringify(result.error), lastId);
      text += frame("done", "[DONE]", lastId);
      controller.enqueue(bytes(text));
      controller.close();
    });
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      controller.enqueue(bytes(frame("thread", handle.threadId, after)));
    },
    pull() {
      if (!waiting) write();
    },
    cancel() {
      // The client went away: stop writing; the run itself goes on.
      stopped = true;
      cursor.close();
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

/**
 * `JSON.stringify` of a chunk envelope as the run's event log builds it (keys id, object, created,
 * model, choices, then kind when set), with the part shared by every chunk of one model call
 * serialized once: per token only the delta is. Byte-for-byte the same text.
 */
function envelopeJson(): (chunk: ChunkEnvelope) => string {
  let id: string | undefined;
  let created = 0;
  let model = "";
  let head = "";
  return (chunk) => {
    if (chunk.id !== id || chunk.created !== created || chunk.model !== model) {
      ({ id, created, model } = chunk);
      head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(created)},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":`;
    }
    const { delta, finish_reason: finish } = chunk.choices[0];
    const kind = chunk.kind === undefined ? "" : `,"kind":${JSON.stringify(chunk.kind)}`;
    return `${head}${JSON.stringify(delta)},"finish_reason":${finish === null ? "null" : JSON.stringify(finish)}}]${kind}}`;
  };
}

/** What the writer reads: buffered events in batches, and a wait for more. */
interface Cursor {
  /** True when every chunk is an envelope as RunEventLog builds it (see `envelopeJson`). */
  readonly envelopes?: boolean;
  take(): RunEvent[];
  readonly ended: boolean;
  wake(callback: () => void): void;
  close(): void;
}

/**
 * The handle's own cursor when it has one (RunSegment), else one over `events()`: each event
 * becomes a batch of one.
 */
function cursorOf(handle: RunHandle, after: number): Cursor {
  const own = (handle as { cursor?: (after: number) => Cursor }).cursor;
  if (typeof own === "function") return own.call(handle, after);
  const events = handle.events(after)[Symbol.asyncIterator]();
  let ready: RunEvent[] = [];
  let ended = false;
  let pending: Promise<unknown> | undefined;
  return {
    take() {
      const out = ready;
      ready = [];
      return out;
    },
    get ended() {
      return ended && ready.length === 0;
    },
    wake(callback) {
      pending ??= events.next().then((next) => {
        pending = undefined;
        if (next.done) ended = true;
        else ready.push(next.value);
      });
      void pending.then(callback);
    },
    close() {
      void events.return?.(undefined);
    },
  };
}

function firstAfter(handle: RunHandle): number {
  const first = (handle as { firstSeq?: unknown }).firstSeq;
  return typeof first === "number" ? first - 1 : 0;
}
