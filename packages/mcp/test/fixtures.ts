import type { AddressInfo } from "node:net";
import { defineTool } from "@agentsvc/agent-core";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Hono } from "hono";
import * as v from "valibot";
import { defineToolServer, type McpRouteOptions, mcpRoute } from "../src/index.js";

/** A controllable gate: a tool awaits `wait`, the test calls `open()`. */
export function gate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export function sampleServer(hooks: { slow?: Promise<void>; onSignal?: (signal: AbortSignal) => void } = {}) {
  const calls: string[] = [];
  const server = defineToolServer({
    name: "sample-tools",
    version: "1.2.3",
    description: "Tools used by the mcp package tests.",
    tools: [
      defineTool({
        name: "add",
        description: "Adds two numbers.",
        input: v.object({ a: v.number(), b: v.number() }),
        execute: ({ a, b }) => {
          calls.push("add");
          return { sum: a + b };
        },
      }),
      defineTool({
        name: "shout",
        description: "Upper-cases text.",
        input: v.object({ text: v.pipe(v.string(), v.minLength(1)) }),
        execute: ({ text }) => text.toUpperCase(),
      }),
      defineTool({
        name: "fail",
        description: "Always fails.",
        input: v.object({}),
        execute: () => {
          throw new Error("disk is full");
        },
      }),
      defineTool({
        name: "whoami",
        description: "Reports the tool context.",
        input: v.object({}),
        execute: (_input, ctx) => ({ threadId: ctx.threadId, userId: ctx.userId }),
      }),
      defineTool({
        name: "slow",
        description: "Waits until the test lets it finish.",
        input: v.object({}),
        execute: async (_input, ctx) => {
          hooks.onSignal?.(ctx.signal);
          await hooks.slow;
          return "finished";
        },
      }),
    ],
  });
  return { server, calls };
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Real HTTP on 127.0.0.1, port chosen by the OS. */
export async function listen(app: Hono): Promise<Listening> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            // SSE streams are long-lived: drop them so close() does not wait for clients.
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * `mcpRoute(options)` mounted at the root and served on 127.0.0.1; its close (route, then listener)
 * is pushed on `cleanups`. The route's URL is `${url}/mcp` for path "/mcp".
 */
export async function serveRoute(
  options: McpRouteOptions,
  cleanups: (() => Promise<void>)[],
): Promise<{ url: string; route: ReturnType<typeof mcpRoute> }> {
  const route = mcpRoute(options);
  const root = new Hono();
  root.route("/", route.app);
  const http = await listen(root);
  cleanups.push(async () => {
    await route.close();
    await http.close();
  });
  return { url: http.url, route };
}

/**
 * `serveRoute` with path "/mcp" and the sample server, and a real SDK client in a session on it:
 * the route's URL and port, the client and its session id (client closed on `cleanups` too).
 */
export async function openSession(options: Partial<McpRouteOptions>, cleanups: (() => Promise<void>)[]) {
  const http = await serveRoute({ server: sampleServer().server, path: "/mcp", ...options }, cleanups);
  const url = `${http.url}/mcp`;
  const client = await connectClient(url);
  cleanups.push(() => client.close());
  return { url, port: Number(new URL(http.url).port), client, sessionId: sessionIdOf(client) };
}

export async function connectClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test-client", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

export function sessionIdOf(client: Client): string {
  const id = (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
  if (!id) throw new Error("client has no session id");
  return id;
}

export const INIT_BODY = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** POSTs `body` to the route at `url` with the MCP headers, `headers` over them (a session id, another Accept). */
export const postMcp = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });

/** Waits for a condition with a bound (for background sweeps), failing with a clear message. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
