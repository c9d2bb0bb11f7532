// The 1 MiB body limit on the Node request path (what `@hono/node-server` runs in production): a
// body sent chunked, without Content-Length, is counted while it is read.
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { agentRoutes } from "../src/index.js";
import { listen } from "./helpers.js";

const MiB = 1024 * 1024;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function invokeUrl(): Promise<string> {
  const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }) });
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs }));
  const server = await listen(app);
  closers.push(server.close);
  return `${server.url}/agent/invoke`;
}

/** POSTs `bytes` in 64 KiB chunks without Content-Length (chunked transfer encoding). */
function postChunked(url: string, bytes: Uint8Array): Promise<Response> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 65536) controller.enqueue(bytes.slice(i, i + 65536));
      controller.close();
    },
  });
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);
}

/** A JSON object of exactly `size` bytes whose `input` is not a string (so no turn runs). */
function jsonOfSize(size: number): Uint8Array {
  const shell = JSON.stringify({ input: 5, pad: "" });
  return new TextEncoder().encode(JSON.stringify({ input: 5, pad: "p".repeat(size - shell.length) }));
}

describe("the body limit on the Node server path", () => {
  it("answers a chunked 1.5 MiB POST with 413 too_large", async () => {
    const response = await postChunked(await invokeUrl(), jsonOfSize(1.5 * MiB));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, error: { code: "too_large" } });
  });

  it("reads a chunked body of exactly 1 MiB and refuses one byte more", async () => {
    const url = await invokeUrl();
    const exact = await postChunked(url, jsonOfSize(MiB));
    // Read whole and parsed: refused for its content (input is a number), not its size.
    expect(exact.status).toBe(400);
    expect(await exact.json()).toMatchObject({ error: { code: "invalid_body" } });
    const over = await postChunked(url, jsonOfSize(MiB + 1));
    expect(over.status).toBe(413);
  });
});
