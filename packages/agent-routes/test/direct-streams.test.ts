import type { ServerResponse } from "node:http";
import { connect } from "node:net";
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { defineAgent, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono, type MiddlewareHandler } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes, directStreams } from "../src/index.js";
import { listen, postJson, readSse } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A model that streams `count` text deltas of `size` characters as fast as it is read. */
function floodModel(count: number, size: number): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "flood",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("unused")),
    doStream: async () => {
      let i = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        pull(controller) {
          if (i === 0) controller.enqueue({ type: "text-start", id: "t" });
          if (i < count) {
            controller.enqueue({ type: "text-delta", id: "t", delta: String(i % 10).repeat(size) });
          } else {
            controller.enqueue({ type: "text-end", id: "t" });
            controller.enqueue({
              type: "finish",
              finishReason: { unified: "stop", raw: "stop" },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: count, text: count, reasoning: undefined },
              },
            });
            controller.close();
          }
          i++;
        },
      });
      return { stream };
    },
  };
}

/** Watches what reaches Node's response: the type of each write and the most it ever buffered. */
function watchWrites() {
  const seen = { kinds: new Set<string>(), maxBuffered: 0 };
  const middleware: MiddlewareHandler = async (c, next) => {
    const out = (c.env as { outgoing: ServerResponse }).outgoing;
    const write = out.write.bind(out) as (chunk: unknown) => boolean;
    out.write = ((chunk: unknown) => {
      seen.kinds.add(typeof chunk === "string" ? "text" : "bytes");
      const ok = write(chunk);
      seen.maxBuffered = Math.max(seen.maxBuffered, out.writableLength);
      return ok;
    }) as typeof out.write;
    await next();
    // Set after the handler: directStreams must still send it, as the head goes out last.
    c.header("X-Set-After", "yes");
  };
  return { seen, middleware };
}

async function serveAgent(model: LanguageModelV4 | undefined, direct: boolean) {
  const runs = new RunManager({
    agent: defineAgent({ name: "helper", model: { provider: "demo" } }),
    memory: new WindowMemory(),
    model,
  });
  const watch = watchWrites();
  const app = new Hono();
  if (direct) app.use(directStreams());
  app.use(watch.middleware);
  app.route("/agent", agentRoutes({ runs }));
  const server = await listen(app);
  closers.push(server.close);
  return { url: server.url, seen: watch.seen };
}

describe("directStreams", () => {
  it("sends the head as every middleware left it, then the frames as text straight to Node's response", async () => {
    const { url, seen } = await serveAgent(undefined, true);
    const response = await postJson(`${url}/agent/stream`, { input: "hello" });
    expect(response.headers.get("x-set-after")).toBe("yes");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await readSse(response);
    expect(events[0]?.event).toBe("thread");
    expect(events.at(-1)?.event).toBe("done");
    expect([...seen.kinds]).toEqual(["text"]);
  });

  it("leaves other responses, and every response without it, to the adapter", async () => {
    const direct = await serveAgent(undefined, true);
    const info = await fetch(`${direct.url}/agent/info`);
    expect(info.status).toBe(404);
    expect(info.headers.get("x-set-after")).toBe("yes");
    const plain = await serveAgent(undefined, false);
    const events = await readSse(await postJson(`${plain.url}/agent/stream`, { input: "hello" }));
    expect(events.at(-1)?.event).toBe("done");
    expect([...plain.seen.kinds]).toEqual(["bytes"]);
  });

  it("waits for a slow reader instead of buffering the whole run in memory", async () => {
    const count = 8_000;
    const size = 2048;
    const { url, seen } = await serveAgent(floodModel(count, size), true);
    const { port } = new URL(url);
    const body = JSON.stringify({ input: "flood" });
    const socket = connect(Number(port), "127.0.0.1");
    socket.write(
      `POST /agent/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    // Read nothing for a while: the model has finished long before the client reads.
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 700));
    const chunks: Buffer[] = [];
    // Until the response's last (empty) HTTP chunk: the connection itself is kept alive.
    await new Promise<void>((resolve) => {
      socket.on("data", (data: Buffer) => {
        chunks.push(data);
        if (data.subarray(-5).toString() === "0\r\n\r\n") resolve();
      });
      socket.resume();
    });
    socket.destroy();
    const text = Buffer.concat(chunks).toString("utf8");
    // Every delta (the first with the role), then the finish chunk.
    expect(text.split("event: chunk\n").length - 1).toBe(count + 1);
    expect(text).toContain('event: done\ndata: {"status":"completed"');
    // About 18 MB went out; what waited in the process never came near it.
    expect(seen.maxBuffered).toBeLessThan(2 * 1024 * 1024);
  }, 20_000);
});
