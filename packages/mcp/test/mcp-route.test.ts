import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { request } from "node:http";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type McpRouteOptions, mcpRoute } from "../src/index.js";
import {
  connectClient,
  eventually,
  gate,
  INIT_BODY,
  type Listening,
  listen,
  MCP_HEADERS,
  sampleServer,
  sessionIdOf,
} from "./fixtures.js";

const cleanups: (() => Promise<void>)[] = [];

/** An initialize POST with chosen Host and Origin headers (fetch does not let a caller set Host). */
function rawPost(
  url: string,
  headers: { host: string; origin: string },
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { ...MCP_HEADERS, ...headers },
        timeout: 5000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          // An SSE answer stays open; the first bytes are enough.
          if (res.statusCode === 200) res.destroy();
        });
        res.on("close", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(INIT_BODY));
  });
}
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(options: Partial<McpRouteOptions> = {}, sample = sampleServer()) {
  const route = mcpRoute({ server: sample.server, path: "/mcp", ...options });
  // Mounted the way the server does it: the route app carries the full path.
  const root = new Hono();
  root.route("/", route.app);
  const http: Listening = await listen(root);
  cleanups.push(async () => {
    await route.close();
    await http.close();
  });
  return { route, url: `${http.url}/mcp`, sample };
}

async function client(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const c = await connectClient(url, headers);
  cleanups.push(() => c.close());
  return c;
}

describe("mcpRoute over Streamable HTTP", () => {
  it("initializes a session that reports the tool server's name, version and tools capability", async () => {
    const { url, route } = await setup();
    const c = await client(url);
    expect(c.getServerVersion()).toEqual({ name: "sample-tools", version: "1.2.3" });
    expect(c.getServerCapabilities()?.tools).toBeDefined();
    expect(c.getInstructions()).toBe("Tools used by the mcp package tests.");
    expect(sessionIdOf(c)).toMatch(/^[0-9a-f-]{36}$/);
    expect(route.sessionCount()).toBe(1);
  });

  it("lists every tool with a JSON Schema converted from its valibot input", async () => {
    const { url } = await setup();
    const c = await client(url);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["add", "shout", "fail", "whoami", "slow"]);
    const add = tools.find((t) => t.name === "add");
    expect(add?.description).toBe("Adds two numbers.");
    expect(add?.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    const shout = tools.find((t) => t.name === "shout");
    expect(shout?.inputSchema.properties).toEqual({ text: { type: "string", minLength: 1 } });
  });

  it("calls a tool and returns its object result as JSON text and structuredContent", async () => {
    const { url } = await setup();
    const c = await client(url);
    const result = await c.callTool({ name: "add", arguments: { a: 2, b: 40 } });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: '{"sum":42}' }]);
    expect(result.structuredContent).toEqual({ sum: 42 });
    const text = await c.callTool({ name: "shout", arguments: { text: "hi" } });
    expect(text.content).toEqual([{ type: "text", text: "HI" }]);
  });

  it("returns a thrown tool error as an isError result with the error's message", async () => {
    const { url } = await setup();
    const c = await client(url);
    const result = await c.callTool({ name: "fail", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: "disk is full" }]);
  });

  it("returns invalid input as an isError result naming the field, without running the tool", async () => {
    const { url, sample } = await setup();
    const c = await client(url);
    const result = await c.callTool({ name: "add", arguments: { a: 1, b: "two" } });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]?.text ?? "";
    expect(text).toContain('Invalid input for tool "add"');
    expect(text).toContain("b:");
    expect(sample.calls).toEqual([]);
    const missing = await c.callTool({ name: "add", arguments: {} });
    expect(missing.isError).toBe(true);
  });

  it("answers an unknown tool with a JSON-RPC InvalidParams error listing the tools", async () => {
    const { url } = await setup();
    const c = await client(url);
    const error = await c.callTool({ name: "nope", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain('Unknown tool "nope"');
    expect((error as McpError).message).toContain("add, shout");
  });

  it("gives tools a context bound to the session, with identity from the server side", async () => {
    const { url } = await setup();
    const c = await client(url);
    const result = await c.callTool({ name: "whoami", arguments: {} });
    expect(result.structuredContent).toEqual({ threadId: `mcp:${sessionIdOf(c)}`, userId: "mcp" });
  });

  it("answers 404 to a session id it does not know", async () => {
    const { url } = await setup();
    await client(url);
    const res = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": "00000000-0000-0000-0000-000000000000" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: number; data: { code: string } } };
    expect(body.error.data.code).toBe("session_not_found");
    const get = await fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": "bogus" } });
    expect(get.status).toBe(404);
  });

  it("answers 400 to a request without a session id that is not an initialize request", async () => {
    const { url } = await setup();
    const res = await fetch(url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
    const get = await fetch(url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(400);
    const put = await fetch(url, { method: "PUT", headers: MCP_HEADERS, body: "{}" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
  });

  it("ends a session on DELETE, after which its id answers 404", async () => {
    const { url, route } = await setup();
    const c = await client(url);
    const transport = c.transport as StreamableHTTPClientTransport;
    const id = sessionIdOf(c);
    await transport.terminateSession();
    expect(route.sessionCount()).toBe(0);
    const reuse = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(reuse.status).toBe(404);
  });

  it("keeps two clients' sessions independent, concurrently and after one ends", async () => {
    const { url, route } = await setup();
    const [one, two] = await Promise.all([client(url), client(url)]);
    expect(sessionIdOf(one)).not.toBe(sessionIdOf(two));
    expect(route.sessionCount()).toBe(2);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? one : two).callTool({ name: "add", arguments: { a: i, b: 1 } }),
      ),
    );
    expect(results.map((r) => (r.structuredContent as { sum: number }).sum)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    const who = await Promise.all([one, two].map((c) => c.callTool({ name: "whoami", arguments: {} })));
    expect(who[0]?.structuredContent).not.toEqual(who[1]?.structuredContent);

    await (one.transport as StreamableHTTPClientTransport).terminateSession();
    expect(route.sessionCount()).toBe(1);
    const still = await two.callTool({ name: "shout", arguments: { text: "ok" } });
    expect(still.content).toEqual([{ type: "text", text: "OK" }]);
  });

  it("answers with SSE by default and with one JSON body when jsonResponse is set", async () => {
    const sse = await setup();
    const a = await fetch(sse.url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INIT_BODY) });
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toContain("text/event-stream");
    expect(await a.text()).toContain('"serverInfo":{"name":"sample-tools"');

    const json = await setup({ jsonResponse: true });
    const b = await fetch(json.url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify(INIT_BODY),
    });
    expect(b.headers.get("content-type")).toContain("application/json");
    const body = (await b.json()) as { result: { serverInfo: { name: string } } };
    expect(body.result.serverInfo.name).toBe("sample-tools");
    expect(b.headers.get("mcp-session-id")).toBeTruthy();

    const c = await client(json.url);
    const result = await c.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(result.structuredContent).toEqual({ sum: 2 });
  });

  it("requires the API key when one is configured and accepts X-API-Key or Bearer", async () => {
    const { url } = await setup({ apiKey: "s3cret-key" });
    const none = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INIT_BODY) });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      "api_key_required",
    );
    const wrong = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "x-api-key": "s3cret-kez" },
      body: JSON.stringify(INIT_BODY),
    });
    expect(wrong.status).toBe(401);
    await expect(connectClient(url)).rejects.toMatchObject({ code: 401 });

    const viaHeader = await client(url, { "x-api-key": "s3cret-key" });
    expect((await viaHeader.listTools()).tools.length).toBe(5);
    const viaBearer = await client(url, { authorization: "Bearer s3cret-key" });
    expect((await viaBearer.callTool({ name: "add", arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
      sum: 3,
    });

    // A session id alone is not a credential: every request needs the key.
    const stolen = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": sessionIdOf(viaHeader) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    });
    expect(stolen.status).toBe(401);
  });

  it("rejects every request when the configured API key variable is empty", async () => {
    const { url } = await setup({ apiKey: "" });
    for (const headers of [
      {},
      { "x-api-key": "" },
      { authorization: "Bearer " },
      { "x-api-key": "anything" },
    ]) {
      const res = await fetch(url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...headers },
        body: JSON.stringify(INIT_BODY),
      });
      expect(res.status).toBe(401);
    }
  });

  it("closes idle sessions after the bound, so their ids answer 404", async () => {
    // A fake clock: on a loaded machine a real 100 ms bound can pass between the client's
    // initialize and its initialized notification, closing the session before connect ends.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      const { url, route } = await setup({ idleTimeoutMs: 100 });
      const c = await client(url);
      const id = sessionIdOf(c);
      await vi.advanceTimersByTimeAsync(90);
      expect(route.sessionCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(200);
      await eventually(() => route.sessionCount() === 0, "the idle sweep to close the session");
      const late = await fetch(url, {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": id },
        body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }),
      });
      expect(late.status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not expire a session while one of its tool calls is still running", async () => {
    // The idle sweep's interval and Date on a fake clock, moved well past the bound once the tool runs.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      const slow = gate();
      let started = false;
      const tools = sampleServer({
        slow: slow.wait,
        onSignal: () => {
          started = true;
        },
      });
      const { url, route } = await setup({ idleTimeoutMs: 60 }, tools);
      const c = await client(url);
      const call = c.callTool({ name: "slow", arguments: {} });
      await eventually(() => started, "the slow tool to start");
      await vi.advanceTimersByTimeAsync(400);
      expect(route.sessionCount()).toBe(1);
      slow.open();
      expect((await call).content).toEqual([{ type: "text", text: "finished" }]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("aborts the tool's signal when the client cancels the call, and keeps serving", async () => {
    const slow = gate();
    let seen: AbortSignal | undefined;
    const { url } = await setup({}, sampleServer({ slow: slow.wait, onSignal: (s) => (seen = s) }));
    const c = await client(url);
    const abort = new AbortController();
    const call = c.callTool({ name: "slow", arguments: {} }, undefined, { signal: abort.signal });
    await eventually(() => seen !== undefined, "the slow tool to start");
    abort.abort();
    await expect(call).rejects.toThrow();
    await eventually(() => seen?.aborted === true, "the tool's signal to abort");
    slow.open();
    expect((await c.callTool({ name: "add", arguments: { a: 1, b: 1 } })).structuredContent).toEqual({
      sum: 2,
    });
  });

  it("survives a client that drops its socket mid-call", async () => {
    const slow = gate();
    const { url } = await setup({}, sampleServer({ slow: slow.wait }));
    const c = await client(url);
    const id = sessionIdOf(c);
    const drop = new AbortController();
    const pending = fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 77,
        method: "tools/call",
        params: { name: "slow", arguments: {} },
      }),
      signal: drop.signal,
    });
    const res = await pending;
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    drop.abort();
    slow.open();
    expect((await c.callTool({ name: "shout", arguments: { text: "alive" } })).content).toEqual([
      { type: "text", text: "ALIVE" },
    ]);
  });

  it("ends every session on close(), answering 404 and refusing new sessions", async () => {
    const { url, route } = await setup();
    const c = await client(url);
    const id = sessionIdOf(c);
    await route.close();
    expect(route.sessionCount()).toBe(0);
    const after = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
    const init = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INIT_BODY) });
    expect(init.status).toBe(503);
  });

  it("aborts the signal of a running tool call when the route closes", async () => {
    const slow = gate();
    let seen: AbortSignal | undefined;
    const { url, route } = await setup({}, sampleServer({ slow: slow.wait, onSignal: (s) => (seen = s) }));
    const c = await client(url);
    const call = c.callTool({ name: "slow", arguments: {} }).catch((e: unknown) => e);
    await eventually(() => seen !== undefined, "the slow tool to start");
    await route.close();
    expect(seen?.aborted).toBe(true);
    slow.open();
    // The client learns of it when it closes (no response ever comes on a closed session).
    await c.close();
    expect(await call).toBeInstanceOf(Error);
  });

  it("refuses new sessions beyond maxSessions with 503", async () => {
    const { url } = await setup({ maxSessions: 1 });
    await client(url);
    const res = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INIT_BODY) });
    expect(res.status).toBe(503);
  });

  it("rejects cross-origin browser requests unless the origin is allowed", async () => {
    const blocked = await setup();
    const res = await fetch(blocked.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, origin: "http://evil.example" },
      body: JSON.stringify(INIT_BODY),
    });
    expect(res.status).toBe(403);
    const allowed = await setup({ allowedOrigins: ["http://app.example"] });
    const ok = await fetch(allowed.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, origin: "http://app.example" },
      body: JSON.stringify(INIT_BODY),
    });
    expect(ok.status).toBe(200);
  });

  it("refuses a DNS-rebinding request: a foreign Host with a matching Origin is 403", async () => {
    const { url } = await setup();
    const port = new URL(url).port;
    const rebound = await rawPost(url, {
      host: `evil.example:${port}`,
      origin: `http://evil.example:${port}`,
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain("origin_not_allowed");
    const local = await rawPost(url, { host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(local.status).toBe(200);
    // An operator's predicate admits the names it serves.
    const served = await setup({ hostAllowed: (name) => name === "chat.example.com" });
    const servedPort = new URL(served.url).port;
    const ok = await rawPost(served.url, {
      host: `chat.example.com:${servedPort}`,
      origin: `http://chat.example.com:${servedPort}`,
    });
    expect(ok.status).toBe(200);
  });

  it("answers malformed, oversized and non-JSON bodies with 4xx JSON-RPC errors", async () => {
    const { url } = await setup({ maxBodyBytes: 1024 });
    const bad = await fetch(url, { method: "POST", headers: MCP_HEADERS, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const big = await fetch(url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ ...INIT_BODY, pad: "x".repeat(4096) }),
    });
    expect(big.status).toBe(413);
    const text = await fetch(url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "content-type": "text/plain" },
      body: JSON.stringify(INIT_BODY),
    });
    expect(text.status).toBe(415);
  });

  it("serves the path with a trailing slash and nothing else", async () => {
    const { url } = await setup();
    const slash = await fetch(`${url}/`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify(INIT_BODY),
    });
    expect(slash.status).toBe(200);
    const other = await fetch(`${url}x`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify(INIT_BODY),
    });
    expect(other.status).toBe(404);
  });
});

describe("mcpRoute options", () => {
  it("refuses a path that does not start with a slash", () => {
    expect(() => mcpRoute({ server: sampleServer().server, path: "mcp" })).toThrow(
      /path: expected a path starting with "\/"/,
    );
  });

  it("refuses something that is not a defineToolServer result", () => {
    expect(() => mcpRoute({ server: { name: "x" } as never, path: "/mcp" })).toThrow(/defineToolServer/);
  });
});
