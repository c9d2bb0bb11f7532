import type { RunEvent, RunHandle } from "@agentsvc/agent-core";
import type { ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { ending, publicError } from "./turn-failure.js";

/**
 * Frames as bytes. `Buffer.from` copies a short string into a slice of Node's shared pool, where
 * `TextEncoder.encode` gave every frame an ArrayBuffer (and a backing store) of its own.
 */
// Stryker disable next-line StringLiteral: Buffer.from(text, "") encodes as UTF-8 too (the default)
const bytes = (text: string): Uint8Array => Buffer.from(text, "utf8");

/** The context key under which `streamRun` leaves its Node writer for `directStreams`. */
// Stryker disable next-line StringLiteral: the key is set and read through this one constant; nothing else sets a context variable named ""
const DIRECT_STREAM = "agentsvc.directStream";

/** Writes a stream's frames straight to a Node response (see `directStreams`). */
type NodeWriter = (out: ServerResponse) => void;

/**
 * Writes a run as SSE: `thread` (the threadId, id = `after`), one `chunk` per event (id = seq),
 * `error` (`{code, message, retryAfterMs?}`) when the turn failed, then `done` (`{status,
 * finishReason?, usage?}`, id = last seq). The run is persisted before its events end, so `done`
 * always follows persistence. A client that goes away stops the writer; `onEnd(true)` tells the
 * caller so (the agent route then cancels the run after a grace period), `onEnd(false)` that the
 * stream was written to its end. It is called once.
 *
 * The Response's body is a ReadableStream, which works wherever Hono runs. Behind
 * `directStreams` on Node, the same frames go straight to the socket instead: a stream waiting
 * for its next token then holds no pending read, and a token costs no stream promises.
 */
export function streamRun(
  c: Context,
  handle: RunHandle,
  options: {
    after?: number;
    threadId?: string;
    coalesceMs?: number | undefined;
    onEnd?: (hungUp: boolean) => void;
  } = {},
): Response {
  const after = options.after ?? firstAfter(handle);
  const coalesceMs = Math.max(0, options.coalesceMs ?? 0);
  // The id the client knows the thread by (the run's own id unless the route scopes its threads).
  const threadId = options.threadId ?? handle.threadId;
  let feed: SseFeed | undefined;
  let settled = false;
  const settle = (hungUp: boolean) => {
    if (settled) return;
    settled = true;
    options.onEnd?.(hungUp);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        // Frames are written when the reader asks (highWaterMark 0): a slow client leaves
        // its events in the run's log, not in this stream's queue.
        feed ??= new SseFeed(handle, threadId, after, coalesceMs, {
          send(text) {
            controller.enqueue(bytes(text));
            return false;
          },
          end(text) {
            controller.enqueue(bytes(text));
            controller.close();
            settle(false);
          },
        });
        feed.pump();
      },
      cancel() {
        // The client went away: stop writing, and tell the caller (which may cancel the run).
        feed?.stop();
        settle(true);
      },
    },
    { highWaterMark: 0 },
  );
  const direct: NodeWriter = (out) => {
    const node = new SseFeed(handle, threadId, after, coalesceMs, {
      send(text) {
        if (out.write(text)) return true;
        out.once("drain", node.pump);
        return false;
      },
      end(text) {
        out.end(text);
        settle(false);
      },
    });
    out.once("close", () => {
      node.stop();
      settle(true);
    });
    node.pump();
  };
  (c as Context<{ Variables: Record<string, unknown> }>).set(DIRECT_STREAM, direct);
  c.header("X-Thread-Id", threadId);
  c.header("X-Accel-Buffering", "no");
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  c.header("Connection", "keep-alive");
  // Marks the body as streamed, so the Node adapter sends headers at once instead of reading ahead.
  c.header("Transfer-Encoding", "chunked");
  return c.body(body);
}

/**
 * Middleware that sends `streamRun`'s streams straight to Node's response when the app is served
 * by `@hono/node-server`. Install it first (outermost), so every other middleware has set its
 * headers: it writes the final response's head itself, then hands the socket to the stream and
 * answers the adapter that the response is already sent. Without it (or off Node), streams go
 * through the Response body as usual.
 */
export function directStreams(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const direct = (c as Context<{ Variables: Record<string, unknown> }>).get(DIRECT_STREAM) as
      | NodeWriter
      | undefined;
    const out = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (!direct || !out || out.headersSent || c.res.status !== 200) return;
    if (c.res.headers.get("content-type") !== "text/event-stream") return;
    out.writeHead(200, nodeHeaders(c.res.headers));
    direct(out);
    c.res = new Response(null, { headers: { [ALREADY_SENT]: "true" } });
  };
}

/** `@hono/node-server`'s marker (its `RESPONSE_ALREADY_SENT`): the adapter leaves the response alone. */
const ALREADY_SENT = "x-hono-already-sent";

function nodeHeaders(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // Stryker disable next-line ConditionalExpression,StringLiteral: a set-cookie entry copied here is replaced by the whole list below
  for (const [name, value] of headers) if (name !== "set-cookie") out[name] = value;
  const cookies = headers.getSetCookie();
  // Stryker disable next-line ConditionalExpression,EqualityOperator: Node's writeHead writes no header for an empty list
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

/**
 * Most events in one write: a fast model fills the log faster than the client reads, and a
 * write of everything buffered would hand the socket megabytes at once, past its backpressure.
 */
const BATCH = 256;

/** Where a feed's frames go. `send` answers whether it may send more at once. */
interface FrameOut {
  send(text: string): boolean;
  end(text: string): void;
}

/**
 * One stream's writer: the `thread` frame, then whatever the run's log holds, in batches, then
 * `error`/`done`. It waits on one wake-up callback in the log (not a suspended function and its
 * promises) and, when the output is full, on the output (`pump` again: a pull or a drain).
 *
 * With `coalesceMs`, events that arrive within that long of the last write wait for the window's
 * end and go out together in one write (each still its own frame and id): a browser pays a task
 * or two per network read, so a model streaming a token every few ms costs its main thread once
 * per window instead of once per token. The first event after a quiet spell, and the run's end,
 * go out at once.
 */
class SseFeed {
  private cursor: Cursor | undefined;
  private readonly chunks = new ChunkFrames();
  private lastId: number;
  private waiting = false;
  private finishing = false;
  private stopped = false;
  /** When events last went out (coalescing), and the timer holding the next write. */
  private lastWrite = Number.NEGATIVE_INFINITY;
  private hold: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly handle: RunHandle,
    private readonly threadId: string,
    private readonly after: number,
    private readonly coalesceMs: number,
    private readonly out: FrameOut,
  ) {
    this.lastId = after;
  }

  /** Writes what is buffered; then waits for the log, or for the output to call again. */
  readonly pump = (): void => {
    if (this.hold || this.stopped || this.finishing) return;
    let cursor = this.cursor;
    if (!cursor) {
      cursor = this.cursor = cursorOf(this.handle, this.after);
      if (!this.out.send(frame("thread", this.threadId, this.after))) return;
    }
    while (true) {
      let text = "";
      if (cursor.visit) {
        // The log's own cursor: frames straight from its fields, no envelope objects per event.
        this.chunks.text = "";
        if (cursor.visit(BATCH, this.chunks.add) === 0) break;
        text = this.chunks.text;
        this.lastId = this.chunks.lastSeq;
      } else {
        const batch = cursor.take(BATCH);
        if (batch.length === 0) break;
        for (const event of batch) {
          text += chunkFrame(JSON.stringify(event.chunk), event.seq);
          this.lastId = event.seq;
        }
      }
      // Stryker disable next-line ConditionalExpression,EqualityOperator: lastWrite is read only when coalescing (a clock read per write saved)
      if (this.coalesceMs > 0) this.lastWrite = performance.now();
      if (!this.out.send(text)) return;
    }
    if (!cursor.ended) {
      this.listen();
      return;
    }
    this.finishing = true;
    cursor.close();
    void this.handle.done.then((result) => {
      if (this.stopped) return;
      let text = "";
      // The client's share of the error: the provider's own text stays in the logs.
      if (result.status === "failed")
        text += frame("error", JSON.stringify(publicError(result.error)), this.lastId);
      text += frame("done", JSON.stringify({ status: result.status, ...ending(result) }), this.lastId);
      this.out.end(text);
    });
  };

  /** Waits for the log's next event or end (one callback at a time). */
  private listen(): void {
    if (this.waiting || !this.cursor) return;
    this.waiting = true;
    this.cursor.wake(this.woken);
  }

  private readonly woken = (): void => {
    this.waiting = false;
    if (this.hold) {
      // Inside the window only the run's end sends at once; events keep collecting until then.
      if (!this.runEnded()) {
        this.listen();
        return;
      }
      clearTimeout(this.hold);
      this.hold = undefined;
      // Stryker disable next-line EqualityOperator: with coalesceMs 0, lastWrite stays -Infinity, so the wait is never > 0
    } else if (this.coalesceMs > 0 && !this.runEnded()) {
      const wait = this.lastWrite + this.coalesceMs - performance.now();
      // Stryker disable next-line EqualityOperator: a wait of exactly 0 ms: a 0 ms hold or the write now
      if (wait > 0) {
        this.hold = setTimeout(this.release, wait);
        this.listen();
        return;
      }
    }
    this.pump();
  };

  private readonly release = (): void => {
    this.hold = undefined;
    this.pump();
  };

  /** No more events will come: the segment finished (RunSegment), or the events ended. */
  private runEnded(): boolean {
    const cursor = this.cursor;
    return (
      (this.handle as { finished?: boolean }).finished === true ||
      // Stryker disable next-line OptionalChaining: runEnded() runs only once listen() waited on the cursor, so it is set
      cursor?.finished === true ||
      // Stryker disable next-line OptionalChaining: runEnded() runs only once listen() waited on the cursor, so it is set
      cursor?.ended === true
    );
  }

  stop(): void {
    this.stopped = true;
    // Stryker disable next-line ConditionalExpression,CallExpression: a hold left to fire after stop() finds the feed stopped, and pump() returns at once
    if (this.hold) clearTimeout(this.hold);
    this.hold = undefined;
    // Stryker disable next-line OptionalChaining: stop() is called only on a feed whose pump() ran at once (pull, or the direct writer), which set the cursor
    this.cursor?.close();
  }
}

/** One SSE message; every line of `data` gets its own `data:` field. */
function frame(event: string, data: string, id: number): string {
  // Stryker disable next-line Regex,ConditionalExpression,StringLiteral: no frame's data holds a line break today (JSON, and a threadId that went into X-Thread-Id first, where a line break throws); kept for the next event type
  const lines = /[\r\n]/.test(data) ? data.split(/\r\n|\r|\n/).join("\ndata: ") : data;
  return `event: ${event}\ndata: ${lines}\nid: ${id}\n\n`;
}

/** A `chunk` message; JSON text never holds a raw line break, so its data is one `data:` line. */
function chunkFrame(json: string, seq: number): string {
  return `event: chunk\ndata: ${json}\nid: ${seq}\n\n`;
}

/** The fields of one chunk as the run's event log keeps them. */
interface ChunkFields {
  id: string;
  model: string;
  created: number;
  delta: unknown;
  finish: string | null;
  kind?: string;
}

/**
 * `chunk` frames of log entries, their data byte-for-byte `JSON.stringify` of the envelope the log
 * would build (keys id, object, created, model, choices, then kind when set). The part shared by
 * every chunk of one model call is serialized once: per token only the delta is.
 */
class ChunkFrames {
  // Stryker disable next-line StringLiteral: pump() empties it before each visit
  text = "";
  lastSeq = 0;
  private id: string | undefined;
  private created = 0;
  // Stryker disable next-line StringLiteral: the first entry always differs in id (undefined before), so all three are set before they are read
  private model = "";
  // Stryker disable next-line StringLiteral: the first entry always differs in id (undefined before), so all three are set before they are read
  private head = "";

  readonly add = (seq: number, e: ChunkFields): void => {
    // Stryker disable next-line ConditionalExpression: a cache: building the shared head again gives the same text
    if (e.id !== this.id || e.created !== this.created || e.model !== this.model) {
      this.id = e.id;
      this.created = e.created;
      this.model = e.model;
      this.head = `{"id":${JSON.stringify(e.id)},"object":"chat.completion.chunk","created":${JSON.stringify(e.created)},"model":${JSON.stringify(e.model)},"choices":[{"index":0,"delta":`;
    }
    // Stryker disable next-line ConditionalExpression: a shortcut: JSON.stringify(null) is "null" too
    const finish = e.finish === null ? "null" : JSON.stringify(e.finish);
    const kind = e.kind === undefined ? "" : `,"kind":${JSON.stringify(e.kind)}`;
    this.text += chunkFrame(
      `${this.head}${JSON.stringify(e.delta)},"finish_reason":${finish}}]${kind}}`,
      seq,
    );
    this.lastSeq = seq;
  };
}

/** What the writer reads: buffered events in batches, and a wait for more. */
interface Cursor {
  take(max?: number): RunEvent[];
  /** The event log's cursor (RunSegment) also hands out entries' fields (see `ChunkFrames`). */
  visit?(max: number, fn: (seq: number, entry: ChunkFields) => void): number;
  readonly ended: boolean;
  /**
   * No more events will come, though some may still wait to be taken (the `events()` cursor; a
   * RunSegment says so on the handle). Without it, a window holding the last events would ask for
   * more forever: a finished iterator answers every wake at once.
   */
  readonly finished?: boolean;
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
      // Stryker disable next-line ConditionalExpression: pump() reads ended after take() emptied ready, and runEnded() checks finished (= ended) first
      return ended && ready.length === 0;
    },
    get finished() {
      return ended;
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
