// streamRun as a mounting service uses it (the webui's /resume, the agent route's /stream): what
// each frame holds for any RunHandle, which id the thread frame carries, when onEnd is told what,
// and what a hang-up closes. Handles here are written against agent-core's documented RunHandle
// and EventCursor (run-manager-types.ts, run-segment.ts), with entries a real run cannot be made to
// produce on demand (a model name changing between chunks of one log).
import type { ServerResponse } from "node:http";
import type { RunEvent, RunHandle, TurnResult } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { directStreams, streamRun } from "../src/index.js";
import { listen, postJson, readSse } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];

/** Settles with `late` when `promise` has not settled within `ms` (bounds a fault test). */
const within = <T>(promise: Promise<T>, ms: number, late: T): Promise<T> =>
  Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(late), ms).unref())]);
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Entry {
  id: string;
  model: string;
  created: number;
  delta: Record<string, unknown>;
  finish: string | null;
  kind?: string;
}

const result = (over: Partial<TurnResult> = {}): TurnResult => ({
  threadId: "thr_x",
  status: "completed",
  text: "",
  reasoning: "",
  toolCalls: [],
  newMessages: [],
  ...over,
});

/** The envelope agent-core's log builds for an entry (RunEventLog's `envelope`), key order included. */
const envelopeOf = (e: Entry): RunEvent["chunk"] =>
  ({
    id: e.id,
    object: "chat.completion.chunk",
    created: e.created,
    model: e.model,
    choices: [{ index: 0, delta: e.delta, finish_reason: e.finish }],
    ...(e.kind === undefined ? {} : { kind: e.kind }),
  }) as unknown as RunEvent["chunk"];

/**
 * A finished segment over `entries` (seq firstSeq, firstSeq + 1, ...) with the EventCursor a
 * RunSegment hands out: `visit` with each entry's fields, `wake` once the log has more or ended.
 */
function segment(entries: Entry[], firstSeq = 1, done = result()) {
  const closed: number[] = [];
  const visits: number[] = [];
  const seqOf = (i: number) => firstSeq + i;
  const endSeq = seqOf(entries.length - 1);
  const handle = {
    threadId: "thr_segment",
    options: { threadId: "thr_segment", userId: "u", conversationId: "c" },
    status: done.status,
    done: Promise.resolve(done),
    firstSeq,
    finished: true,
    async *events(after = firstSeq - 1): AsyncGenerator<RunEvent> {
      for (const [i, e] of entries.entries())
        if (seqOf(i) > after) yield { seq: seqOf(i), chunk: envelopeOf(e) };
    },
    cursor(after = firstSeq - 1) {
      let position = after;
      return {
        visit(max: number, fn: (seq: number, entry: Entry) => void) {
          visits.push(position);
          let count = 0;
          for (const [i, e] of entries.entries()) {
            if (seqOf(i) <= position || count >= max) continue;
            fn(seqOf(i), e);
            count++;
          }
          position += count;
          return count;
        },
        take() {
          return [];
        },
        get ended() {
          return position >= endSeq;
        },
        wake(callback: () => void) {
          queueMicrotask(callback);
        },
        // Idempotent, as RunSegment's: record the first close only.
        close() {
          if (closed.length === 0) closed.push(position);
        },
      };
    },
  };
  return { handle: handle as unknown as RunHandle, closed, visits };
}

/** Serves `POST /stream` writing `handle` with `options`, through the body or straight to Node. */
async function serve(
  handle: RunHandle,
  options: Parameters<typeof streamRun>[2] = {},
  direct = false,
  more?: (app: Hono) => void,
) {
  const app = new Hono();
  if (direct) app.use(directStreams());
  more?.(app);
  app.post("/stream", (c) => streamRun(c, handle, options));
  const server = await listen(app);
  closers.push(server.close);
  return `${server.url}/stream`;
}

const entry = (over: Partial<Entry>): Entry => ({
  id: "chatcmpl-a",
  model: "m1",
  created: 100,
  delta: { content: "x" },
  finish: null,
  ...over,
});

describe.each([
  ["through the Response body", false],
  ["written straight to Node's response (directStreams)", true],
])("streamRun, %s", (_how, direct) => {
  it("writes each chunk as the log's envelope byte-for-byte, when the call id, created time or model changes between chunks", async () => {
    const entries = [
      entry({ delta: { role: "assistant", content: "" } }),
      entry({ delta: { content: 'say "hi"\n' } }),
      entry({ created: 101 }),
      entry({ created: 101, model: "m2" }),
      entry({ id: "chatcmpl-b", created: 101, model: "m2" }),
      entry({ id: "chatcmpl-b", created: 101, model: "m2", delta: {}, finish: "stop" }),
      entry({ id: "chatcmpl-c", created: 101, model: "m2", delta: {}, kind: "middleware_stop" }),
    ];
    const { handle } = segment(entries);
    const events = await readSse(await postJson(await serve(handle, {}, direct), {}));
    const chunks = events.filter((e) => e.event === "chunk");
    expect(chunks.map((e) => e.data)).toEqual(entries.map((e) => JSON.stringify(envelopeOf(e))));
    expect(chunks.map((e) => e.id)).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
  });

  it("starts a resumed segment after its first seq less one, and names the handle's own thread", async () => {
    const { handle } = segment([entry({}), entry({})], 8);
    const events = await readSse(await postJson(await serve(handle, {}, direct), {}));
    expect(events.map((e) => [e.event, e.id])).toEqual([
      ["thread", "7"],
      ["chunk", "8"],
      ["chunk", "9"],
      ["done", "9"],
    ]);
    expect(events[0]?.data).toBe("thr_segment");
  });

  it("answers a reconnect past the run's last event with the thread and done frames, both under the reconnect's id", async () => {
    const { handle } = segment([entry({}), entry({})]);
    const events = await readSse(await postJson(await serve(handle, { after: 2 }, direct), {}));
    expect(events.map((e) => [e.event, e.id])).toEqual([
      ["thread", "2"],
      ["done", "2"],
    ]);
  });

  it("tells a failed turn without an error as internal_error, and carries finishReason and usage in done", async () => {
    const usage = { inputTokens: 3, outputTokens: 4, totalTokens: 7 };
    const { handle } = segment([entry({})], 1, result({ status: "failed", finishReason: "error", usage }));
    const events = await readSse(await postJson(await serve(handle, {}, direct), {}));
    expect(events.slice(-2).map((e) => [e.event, e.id, JSON.parse(e.data)])).toEqual([
      ["error", "1", { code: "internal_error", message: "the turn failed; see the server log" }],
      ["done", "1", { status: "failed", finishReason: "error", usage }],
    ]);
  });

  it("tells onEnd once, false, when the stream was written to its end, and closes the cursor", async () => {
    const { handle, closed } = segment([entry({}), entry({})]);
    const ends: boolean[] = [];
    const url = await serve(handle, { onEnd: (hungUp) => ends.push(hungUp) }, direct);
    await readSse(await postJson(url, {}));
    // The connection's close (after the end) must not count as a hang-up.
    await Promise.all(closers.splice(0).map((close) => close()));
    expect(ends).toEqual([false]);
    expect(closed).toEqual([2]);
  });

  it("sends the stream's headers: event-stream, no caching or buffering by proxies, kept alive, chunked", async () => {
    const { handle } = segment([entry({})]);
    const response = await postJson(await serve(handle, { threadId: "mine" }, direct), {});
    await response.text();
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "x-thread-id": "mine",
      connection: "keep-alive",
      "transfer-encoding": "chunked",
    });
  });
});

describe("streamRun over a handle that only has events()", () => {
  /**
   * A run that streams one chunk, then waits for `more` before its second; its iterator records
   * being closed (an async generator waiting in an await takes its return() at the next yield).
   */
  function waitingRun(endsAfterSecond = false) {
    let returned!: () => void;
    const closed = new Promise<void>((resolve) => {
      returned = resolve;
    });
    let more!: () => void;
    const gate = new Promise<void>((resolve) => {
      more = resolve;
    });
    let finish!: (r: TurnResult) => void;
    const handle: RunHandle = {
      threadId: "thr_wait",
      options: { threadId: "thr_wait", userId: "u", conversationId: "c" },
      status: "running",
      done: new Promise((resolve) => {
        finish = resolve;
      }),
      async *events(after = 0) {
        try {
          if (after < 1) yield { seq: 1, chunk: envelopeOf(entry({})) };
          await gate;
          yield { seq: 2, chunk: envelopeOf(entry({})) };
          if (!endsAfterSecond) await new Promise(() => {});
        } finally {
          returned();
        }
      },
    };
    return { handle, closed, more, finish };
  }

  it.each([
    ["through the Response body", false],
    ["written straight to Node's response", true],
  ])(
    "closes the run's event iterator and tells onEnd true once when the client hangs up, %s",
    async (_how, direct) => {
      const { handle, closed, more, finish } = waitingRun();
      const ends: boolean[] = [];
      let ended!: () => void;
      const told = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const url = await serve(
        handle,
        {
          onEnd: (hungUp) => {
            ends.push(hungUp);
            ended();
          },
        },
        direct,
      );
      const controller = new AbortController();
      const response = await postJson(url, {}, {}, controller.signal);
      const events = await readSse(response, (e) => e.some((x) => x.event === "chunk"), controller);
      expect(events.map((e) => e.event)).toEqual(["thread", "chunk"]);
      await told;
      more();
      expect(
        await within(
          closed.then(() => "closed"),
          5000,
          "still open",
        ),
      ).toBe("closed");
      finish(result());
      await handle.done;
      expect(ends).toEqual([true]);
    },
  );

  it("with a coalescing window, sends the run's end at once (the window is not waited out)", async () => {
    const { handle, more, finish } = waitingRun(true);
    const url = await serve(handle, { coalesceMs: 600_000 });
    const response = await postJson(url, {});
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += r.value;
      if (text.includes("event: chunk")) break;
    }
    expect(text).toContain("event: chunk");
    // The second chunk arrives within the window, then the events end: both go out together, now.
    finish(result());
    more();
    const rest = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
      return "ended";
    })();
    expect(await within(rest, 5000, "held for the window")).toBe("ended");
    expect(text.split("event: chunk\n")).toHaveLength(3);
    expect(text.endsWith('event: done\ndata: {"status":"completed"}\nid: 2\n\n')).toBe(true);
  });

  it("replays the events after the reconnect's id and follows the run to its end", async () => {
    const { handle, finish } = waitingRun();
    const events = [
      { seq: 1, chunk: envelopeOf(entry({ delta: { content: "a" } })) },
      { seq: 2, chunk: envelopeOf(entry({ delta: { content: "b" } })) },
      { seq: 3, chunk: envelopeOf(entry({ delta: { content: "c" } })) },
    ];
    handle.events = async function* (after = 0) {
      for (const event of events) if (event.seq > after) yield event;
    };
    finish(result({ status: "cancelled" }));
    const read = await readSse(await postJson(await serve(handle, { after: 1 }), {}));
    expect(read.map((e) => [e.event, e.id])).toEqual([
      ["thread", "1"],
      ["chunk", "2"],
      ["chunk", "3"],
      ["done", "3"],
    ]);
    expect(read.slice(1, 3).map((e) => e.data)).toEqual(events.slice(1).map((e) => JSON.stringify(e.chunk)));
    expect(JSON.parse(read[3]!.data)).toEqual({ status: "cancelled" });
  });
});

describe("streamRun through the Response body, read by hand", () => {
  function request(handle: RunHandle, onEnd?: (hungUp: boolean) => void) {
    const app = new Hono();
    app.post("/stream", (c) => streamRun(c, handle, { onEnd }));
    return app.request("/stream", { method: "POST" });
  }

  it("takes events from the run's log only as the client reads: after the thread frame nothing was taken", async () => {
    const { handle, visits } = segment([entry({}), entry({}), entry({})]);
    const response = await request(handle);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("event: thread\ndata: thr_segment\nid: 0\n\n");
    // Let any eager pull run: none may (highWaterMark 0, one write per read).
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(visits).toEqual([]);
    const second = await reader.read();
    expect(new TextDecoder().decode(second.value).split("event: chunk\n")).toHaveLength(4);
    await reader.cancel();
  });

  it("tells onEnd true once when the client cancels the body before reading any of it", async () => {
    const { handle, closed } = segment([entry({})]);
    const ends: boolean[] = [];
    const response = await request(handle, (hungUp) => ends.push(hungUp));
    await response.body!.cancel();
    expect(ends).toEqual([true]);
    expect(closed).toEqual([]);
  });
});

describe("directStreams", () => {
  it("streams through the body where there is no Node response (app.request)", async () => {
    const { handle } = segment([entry({}), entry({})]);
    const app = new Hono();
    app.use(directStreams());
    app.post("/stream", (c) => streamRun(c, handle));
    const response = await app.request("/stream", { method: "POST" });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.split("event: chunk\n")).toHaveLength(3);
    expect(text.endsWith('event: done\ndata: {"status":"completed"}\nid: 2\n\n')).toBe(true);
  });

  it("leaves a stream's response that a later middleware replaced to the adapter: a JSON 200, or a 503 still typed event-stream", async () => {
    for (const replacement of [
      () => Response.json({ replaced: true }),
      () =>
        new Response("event: busy\ndata: later\n\n", {
          status: 503,
          headers: { "content-type": "text/event-stream" },
        }),
    ]) {
      const { handle } = segment([entry({})]);
      const url = await serve(handle, {}, true, (app) =>
        app.use(async (c, next) => {
          await next();
          c.res = replacement();
        }),
      );
      const expected = replacement();
      const response = await postJson(url, {});
      expect(response.status).toBe(expected.status);
      expect(await response.text()).toBe(await expected.text());
    }
  });

  it("sends every cookie a middleware set as its own Set-Cookie header", async () => {
    const { handle } = segment([entry({})]);
    const url = await serve(handle, {}, true, (app) =>
      app.use(async (c, next) => {
        await next();
        c.header("Set-Cookie", "a=1; Path=/", { append: true });
        c.header("Set-Cookie", "b=2; Path=/", { append: true });
      }),
    );
    const response = await postJson(url, {});
    expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect((await readSse(response)).at(-1)?.event).toBe("done");
  });

  it("does not write a head of its own once some middleware answered on Node's response itself", async () => {
    const { handle } = segment([entry({})]);
    const failures: unknown[] = [];
    const url = await serve(handle, {}, true, (app) => {
      app.onError((error, c) => {
        failures.push(error);
        return c.text("failed", 500);
      });
      app.use(async (c, next) => {
        await next();
        // A middleware that answered on the socket itself (as a proxy or an upgrade would).
        const out = (c.env as { outgoing: ServerResponse }).outgoing;
        out.writeHead(202, { "content-type": "text/plain" });
        out.end("sent by hand");
      });
    });
    const response = await postJson(url, {});
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("sent by hand");
    expect(failures).toEqual([]);
  });
});
