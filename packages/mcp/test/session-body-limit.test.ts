// A session's POST (one that carries Mcp-Session-Id) has its body read by the route, not by the
// SDK transport: the route's maxBodyBytes applies to it, and past the limit it gets the same 413
// as an initialize, drained so a client still sending reads it. Real HTTP on 127.0.0.1, the real
// SDK client for the normal path, a raw socket for the flood.
import { rawPost } from "@agentsvc/raw-http";
import { afterEach, describe, expect, it } from "vitest";
import type { McpRouteOptions } from "../src/index.js";
import { openSession, postMcp } from "./fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const setup = (options: Partial<McpRouteOptions> = {}) => openSession(options, cleanups);

/** A tools/call of `shout` whose text makes the JSON body about `size` bytes. */
function shoutCall(size: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "shout", arguments: { text: "a".repeat(size) } },
  });
}

/** POSTs `total` bytes with the session's headers and reads the answer only after the last byte is written. */
const sendThenRead = (port: number, sessionId: string, total: number) =>
  rawPost(port, {
    path: "/mcp",
    bytes: total,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
    },
  });

describe("a session's POST body, read by the route", () => {
  it("serves the SDK client's tool calls in a session with a body under maxBodyBytes", async () => {
    const { client } = await setup({ maxBodyBytes: 4096 });
    const result = await client.callTool({ name: "shout", arguments: { text: "b".repeat(3000) } });
    expect(result.content).toEqual([{ type: "text", text: "B".repeat(3000) }]);
  });

  it("answers a session's POST over maxBodyBytes 413 body_too_large with Connection: close, as an initialize", async () => {
    const { url, sessionId, client } = await setup({ maxBodyBytes: 4096 });
    const big = await postMcp(url, shoutCall(8192), { "mcp-session-id": sessionId });
    expect(big.status).toBe(413);
    expect(big.headers.get("connection")).toBe("close");
    expect(await big.json()).toMatchObject({
      error: {
        code: -32000,
        message: "Payload Too Large: the body exceeds 4096 bytes",
        data: { code: "body_too_large" },
      },
    });
    // The SDK client sees the same refusal, and the session is still there for a smaller call.
    await expect(
      client.callTool({ name: "shout", arguments: { text: "c".repeat(8192) } }),
    ).rejects.toMatchObject({ code: 413, message: expect.stringContaining('"code":"body_too_large"') });
    const small = await client.callTool({ name: "shout", arguments: { text: "ok" } });
    expect(small.content).toEqual([{ type: "text", text: "OK" }]);
  });

  it("answers a session's POST that is not JSON 400 invalid_json", async () => {
    const { url, sessionId } = await setup();
    const bad = await postMcp(url, "{not json", { "mcp-session-id": sessionId });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700, data: { code: "invalid_json" } } });
  });

  it("lets a client that writes 7 MiB in a session before it reads anything read the 413 (the default 4 MiB limit, the rest drained)", async () => {
    const { port, sessionId } = await setup();
    const answer = await sendThenRead(port, sessionId, 7 * 1024 * 1024);
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.head).toMatch(/^connection: close$/im);
    expect(answer.body).toContain('"code":"body_too_large"');
  });
});
