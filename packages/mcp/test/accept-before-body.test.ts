// A POST's Accept is checked from its header before its body is read, in a session and for an
// initialize alike: the MCP transport spec (2025-11-25, basic/transports, "Sending Messages to the
// Server", item 2) says the client MUST list both application/json and text/event-stream, and the
// SDK's transport refuses any other Accept with 406 Not Acceptable before it looks at Content-Type
// or the body. So a wrong Accept is told 406 whatever the body (over the limit, not JSON), and the
// Content-Type's 415 comes after it, refused the same way (drained, the connection closed). Real HTTP on
// 127.0.0.1, a raw socket for the flood.
import { rawPost } from "@agentsvc/raw-http";
import { afterEach, describe, expect, it } from "vitest";
import type { McpRouteOptions } from "../src/index.js";
import { INIT_BODY, MCP_HEADERS, openSession, postMcp } from "./fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const setup = (options: Partial<McpRouteOptions> = {}) => openSession(options, cleanups);

const JSON_ONLY = { accept: "application/json" };
const bigCall = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "shout", arguments: { text: "a".repeat(8192) } },
});
const bigInit = JSON.stringify({ ...INIT_BODY, pad: "x".repeat(8192) });

async function expectNotAcceptable(answer: Response): Promise<void> {
  expect(answer.status).toBe(406);
  expect(await answer.json()).toMatchObject({
    error: {
      code: -32000,
      message: "Not Acceptable: Client must accept both application/json and text/event-stream",
      data: { code: "not_acceptable" },
    },
  });
}

describe("a POST refused from its headers (a wrong Accept 406, then a non-JSON Content-Type 415) before its body is read", () => {
  it("answers a session's over-limit POST with a wrong Accept 406, not 413", async () => {
    const { url, sessionId } = await setup({ maxBodyBytes: 4096 });
    await expectNotAcceptable(await postMcp(url, bigCall, { ...JSON_ONLY, "mcp-session-id": sessionId }));
  });

  it("answers an over-limit initialize with a wrong Accept 406, not 413, as in a session", async () => {
    const { url } = await setup({ maxBodyBytes: 4096 });
    await expectNotAcceptable(await postMcp(url, bigInit, JSON_ONLY));
  });

  it("answers a wrong Accept with a wrong Content-Type 406 on both paths (Accept first, as the SDK)", async () => {
    const { url, sessionId } = await setup();
    const headers = { ...JSON_ONLY, "content-type": "text/plain" };
    await expectNotAcceptable(await postMcp(url, JSON.stringify(INIT_BODY), headers));
    await expectNotAcceptable(await postMcp(url, "{}", { ...headers, "mcp-session-id": sessionId }));
  });

  it("still serves the session after a refused POST, and answers a right Accept's over-limit body 413", async () => {
    const { url, sessionId, client } = await setup({ maxBodyBytes: 4096 });
    await expectNotAcceptable(await postMcp(url, "{", { ...JSON_ONLY, "mcp-session-id": sessionId }));
    expect((await postMcp(url, bigCall, { "mcp-session-id": sessionId })).status).toBe(413);
    const small = await client.callTool({ name: "shout", arguments: { text: "ok" } });
    expect(small.content).toEqual([{ type: "text", text: "OK" }]);
  });

  it("answers a right Accept with a non-JSON Content-Type 415 on both paths, the connection closed", async () => {
    const { url, sessionId } = await setup();
    const headers = { "content-type": "text/plain" };
    for (const answer of [
      await postMcp(url, JSON.stringify(INIT_BODY), headers),
      await postMcp(url, "{}", { ...headers, "mcp-session-id": sessionId }),
    ]) {
      expect(answer.status).toBe(415);
      expect(answer.headers.get("connection")).toBe("close");
      expect(await answer.json()).toMatchObject({ error: { data: { code: "unsupported_media_type" } } });
    }
  });

  it.each([false, true])(
    "lets a client that writes 7 MiB with a non-JSON Content-Type before it reads anything read the 415 (in a session: %s)",
    async (inSession) => {
      const { port, sessionId } = await setup();
      const answer = await rawPost(port, {
        path: "/mcp",
        bytes: 7 * 1024 * 1024,
        headers: {
          ...MCP_HEADERS,
          "content-type": "text/plain",
          ...(inSession ? { "mcp-session-id": sessionId } : {}),
        },
      });
      expect(answer.error).toBeUndefined();
      expect(answer.statusLine).toMatch(/^HTTP\/1\.1 415 /);
      expect(answer.body).toContain('"code":"unsupported_media_type"');
    },
  );

  it("lets a client that writes 7 MiB with a wrong Accept before it reads anything read the 406", async () => {
    const { port, sessionId } = await setup();
    const answer = await rawPost(port, {
      path: "/mcp",
      bytes: 7 * 1024 * 1024,
      headers: { ...MCP_HEADERS, ...JSON_ONLY, "mcp-session-id": sessionId },
    });
    expect(answer.error).toBeUndefined();
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 406 /);
    expect(answer.head).toMatch(/^connection: close$/im);
    expect(answer.body).toContain('"code":"not_acceptable"');
  });
});
