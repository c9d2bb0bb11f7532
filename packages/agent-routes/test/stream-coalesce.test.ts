import type { ServerResponse } from "node:http";
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono, type MiddlewareHandler } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes, agentThreadScope, directStreams } from "../src/index.js";
import { contentOf, listen, postJson } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A model whose text deltas the test sends one by one, then ends. One run only. */
function handModel() {
  let out!: ReadableStreamDefaultController<LanguageModelV4StreamPart>;
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      out = controller;
      controller.enqueue({ type: "text-start", id: "t" });
    },
  });
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "test",
    modelId: "by-hand",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("unused")),
    doStream: async () => ({ stream }),
  };
  // A pause between deltas, so each reaches the run's log (and wakes the writer) on its own.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return {
    model,
    async send(...deltas: string[]) {
      for (const delta of deltas) {
        out.enqueue({ type: "text-delta", id: "t", delta });
        await settle();
      }
    },
    end() {
      out.enqueue({ type: "text-end", id: "t" });
      out.enqueue({
        type: "finish",
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
      });
      out.close();
    },
    /** The provider's stream breaks off: no finish part, no event after the last delta. */
    fail() {
      out.error(new Error("the provider went away"));
    },
  };
}

/** Counts the writes to Node's response that carry chunk frames. */
function countChunkWrites() {
  const seen = { writes: 0 };
  const middleware: MiddlewareHandler = async (c, next) => {
    const res = (c.env as { outgoing: ServerResponse }).outgoing;
    const write = res.write.bind(res) as (chunk: unknown) => boolean;
    res.write = ((chunk: unknown) => {
      if (
        Buffer.from(chunk as string)
          .toString("utf8")
          .includes("event: chunk")
      )
        seen.writes++;
      return write(chunk);
    }) as typeof res.write;
    await next();
  };
  return { seen, middleware };
}

async function serve(model: LanguageModelV4, direct: boolean, streamCoalesceMs: number) {
  const runs = new RunManager({
    agent: defineAgent({ name: "helper", model: { provider: "demo" } }),
    memory: new WindowMemory(),
    model,
  });
  const count = countChunkWrites();
  const app = new Hono();
  if (direct) app.use(directStreams());
  app.use(count.middleware);
  app.route("/agent", agentRoutes({ runs, streamCoalesceMs }));
  const server = await listen(app);
  closers.push(server.close);
  return { base: `${server.url}/agent`, runs, seen: count.seen };
}

interface Frame {
  event: string;
  data: string;
  id: string;
}

/** Reads SSE frames as they arrive (the server writes whole frames); `until` decides when to stop. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  frames: Frame[],
  until: (frames: Frame[]) => boolean,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  while (!until(frames)) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const fields = Object.fromEntries(
        buffer
          .slice(0, end)
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      );
      frames.push({ event: fields.event ?? "", data: fields.data ?? "", id: fields.id ?? "" });
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  }
}

const chunkCount = (frames: Frame[]) => frames.filter((f) => f.event === "chunk").length;
const deltas = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `d${from + i} `);

describe.each([
  ["through the Response body", false],
  ["written straight to Node's response (directStreams)", true],
])("POST /stream with streamCoalesceMs, %s", (_how, direct) => {
  it("sends the first delta at once, holds the ones that follow within the window and sends them in one write when the run ends", async () => {
    const hand = handModel();
    // A window far longer than the test: whatever goes out early went out without waiting for it.
    const { base, seen } = await serve(hand.model, direct, 60_000);
    const response = await postJson(`${base}/stream`, { input: "hello" });
    const reader = response.body!.getReader();
    const frames: Frame[] = [];
    await hand.send("first ");
    await readUntil(reader, frames, (f) => contentOf(f as never).includes("first"));
    expect(seen.writes).toBe(1);
    await hand.send(...deltas(8));
    expect(seen.writes).toBe(1);
    hand.end();
    await readUntil(reader, frames, (f) => f.at(-1)?.event === "done");
    // Every delta, each in its own chunk with the next id, and all eight held ones in one write.
    expect(contentOf(frames as never)).toBe(`first ${deltas(8).join("")}`);
    const chunks = frames.filter((f) => f.event === "chunk");
    expect(chunks.map((f) => Number(f.id))).toEqual(chunks.map((_, i) => i + 1));
    expect(seen.writes).toBe(2);
  });

  it("sends a run's end that follows its last write with no event between at once, not after the window", async () => {
    const hand = handModel();
    const { base } = await serve(hand.model, direct, 600_000);
    const response = await postJson(`${base}/stream`, { input: "hello" });
    const reader = response.body!.getReader();
    const frames: Frame[] = [];
    await hand.send("first ");
    await readUntil(reader, frames, (f) => contentOf(f as never).includes("first"));
    hand.fail();
    const ended = readUntil(reader, frames, (f) => f.at(-1)?.event === "done").then(() => "ended");
    const held = new Promise((resolve) => setTimeout(() => resolve("held for the window"), 5_000).unref());
    expect(await Promise.race([ended, held])).toBe("ended");
    expect(frames.map((f) => f.event).slice(-2)).toEqual(["error", "done"]);
  });

  it("carries every delta exactly once to a client that hung up mid-stream and reattached with Last-Event-ID", async () => {
    const hand = handModel();
    const { base, runs } = await serve(hand.model, direct, 100);
    const controller = new AbortController();
    const first = await postJson(`${base}/stream`, { input: "hello" }, {}, controller.signal);
    const threadId = first.headers.get("x-thread-id")!;
    const seen: Frame[] = [];
    // Sent in quick succession: after the first, they reach the client coalesced.
    await hand.send(...deltas(6));
    await readUntil(first.body!.getReader(), seen, (f) => contentOf(f as never) === deltas(6).join(""));
    controller.abort();
    // Streamed while nobody listens, then more after the client is back.
    await hand.send(...deltas(5, 6));
    const lastId = seen.filter((f) => f.event === "chunk").at(-1)!.id;
    const again = await postJson(`${base}/stream`, { threadId }, { "last-event-id": lastId });
    expect(again.status).toBe(200);
    const reader = again.body!.getReader();
    const rest: Frame[] = [];
    await readUntil(reader, rest, (f) => chunkCount(f) >= 5);
    await hand.send(...deltas(4, 11));
    hand.end();
    await readUntil(reader, rest, (f) => f.at(-1)?.event === "done");
    expect(contentOf((seen as never[]).concat(rest as never[]))).toBe(deltas(15).join(""));
    const ids = [...seen, ...rest].filter((f) => f.event === "chunk").map((f) => Number(f.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const done = await runs.get(agentThreadScope("anonymous") + threadId)!.done;
    expect(done.text).toBe(deltas(15).join(""));
  });
});
