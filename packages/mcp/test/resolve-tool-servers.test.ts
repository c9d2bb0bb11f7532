import { createServer } from "node:net";
import type { ToolContext } from "@agentsvc/agent-core";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type McpRouteOptions,
  type ResolvedToolServers,
  resolveToolServers,
  type ToolServerDefinition,
} from "../src/index.js";
import { eventually, sampleServer, serveRoute } from "./fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function remote(options: Partial<McpRouteOptions> = {}, sample = sampleServer()) {
  const { url, route } = await serveRoute({ server: sample.server, path: "/mcp", ...options }, cleanups);
  return { url: `${url}/mcp`, route };
}

async function resolve(...args: Parameters<typeof resolveToolServers>): Promise<ResolvedToolServers> {
  const resolved = await resolveToolServers(...args);
  cleanups.push(() => resolved.close());
  return resolved;
}

const ctx = (): ToolContext => ({
  threadId: "thr_1",
  userId: "u",
  conversationId: "c",
  signal: new AbortController().signal,
});

const noLocal = { local: new Map<string, ToolServerDefinition>(), env: {} };

/** A port nothing listens on: bind one, then free it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("resolveToolServers: local servers", () => {
  it("returns a local tool server's own tools when referenced by its declared name", async () => {
    const { server } = sampleServer();
    const resolved = await resolve(["sample-tools"], { local: new Map([["sample-tools", server]]), env: {} });
    expect(resolved.tools).toEqual(server.tools);
  });

  it("names the agent, the ref and the declared servers when a local name is unknown", async () => {
    const { server } = sampleServer();
    await expect(
      resolveToolServers(["crm"], {
        local: new Map([["sample-tools", server]]),
        env: {},
        agentName: "support",
      }),
    ).rejects.toThrow(
      'agent "support": toolServers[0]: expected the declared name of a tool server under mcp/ (got "crm"; declared: "sample-tools")',
    );
  });

  it("refuses two servers that bring a tool of the same name", async () => {
    const { url } = await remote();
    const { server } = sampleServer();
    await expect(
      resolveToolServers(["sample-tools", { url }], { local: new Map([["sample-tools", server]]), env: {} }),
    ).rejects.toThrow(
      /toolServers\[1\]: tool "add" from MCP server at .* has the same name as a tool from tool server "sample-tools"/,
    );
  });
});

describe("resolveToolServers: remote MCP servers", () => {
  it("turns remote tools into JSON-schema tools whose execute calls the server", async () => {
    const { url } = await remote();
    const resolved = await resolve([{ url }], noLocal);
    const add = resolved.tools.find((t) => t.name === "add");
    expect(add?.description).toBe("Adds two numbers.");
    expect(add?.input).toMatchObject({
      type: "json-schema",
      schema: { type: "object", properties: { a: { type: "number" } } },
    });
    expect(add?.needsApproval).toBeUndefined();
    expect(await add?.execute({ a: 20, b: 22 }, ctx())).toBe('{"sum":42}');
    const shout = resolved.tools.find((t) => t.name === "shout");
    expect(await shout?.execute({ text: "hey" }, ctx())).toBe("HEY");
  });

  it("throws the remote tool's error text when the result is isError", async () => {
    const { url } = await remote();
    const resolved = await resolve([{ url }], noLocal);
    const fail = resolved.tools.find((t) => t.name === "fail");
    await expect(fail?.execute({}, ctx())).rejects.toThrow("disk is full");
    const add = resolved.tools.find((t) => t.name === "add");
    await expect(add?.execute({ a: "x" }, ctx())).rejects.toThrow(/Invalid input for tool "add"/);
  });

  it("marks every remote tool for approval with needsApproval: true", async () => {
    const { url } = await remote();
    const resolved = await resolve([{ url, needsApproval: true }], noLocal);
    expect(resolved.tools.every((t) => t.needsApproval === true)).toBe(true);
  });

  it("marks only the listed remote tools for approval with needsApproval: [names]", async () => {
    const { url } = await remote();
    const resolved = await resolve([{ url, needsApproval: ["fail", "slow"] }], noLocal);
    const gated = resolved.tools.filter((t) => t.needsApproval === true).map((t) => t.name);
    expect(gated).toEqual(["fail", "slow"]);
  });

  it("refuses an approval list naming a tool the server does not have", async () => {
    const { url } = await remote();
    await expect(resolveToolServers([{ url, needsApproval: ["delete_all"] }], noLocal)).rejects.toThrow(
      /toolServers\[0\]\.needsApproval: expected tool names of the MCP server at .*\(got "delete_all"; it has: add, shout/,
    );
  });

  it("fails with the URL when the remote server cannot be reached", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp?token=hidden`;
    const error = await resolveToolServers([{ url }], { ...noLocal, agentName: "a" }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(
      `agent "a": toolServers[0]: could not connect to the MCP server at http://127.0.0.1:${port}/mcp:`,
    );
    // Query strings may carry credentials: never echoed.
    expect((error as Error).message).not.toContain("hidden");
  });

  it("closes servers it already opened when another ref fails", async () => {
    const { url, route } = await remote();
    const port = await closedPort();
    await expect(
      resolveToolServers([{ url }, { url: `http://127.0.0.1:${port}/mcp` }], noLocal),
    ).rejects.toThrow(/toolServers\[1\]/);
    await eventually(() => route.sessionCount() === 0, "the opened session to be ended");
  });

  it("refuses a URL that is not http(s)", async () => {
    await expect(resolveToolServers([{ url: "ftp://x/mcp" }], noLocal)).rejects.toThrow(
      'toolServers[0].url: expected an http(s) URL (got protocol "ftp:")',
    );
  });

  it("sends the key from apiKeyEnvVar as a bearer token", async () => {
    const { url } = await remote({ apiKey: "k-123" });
    const resolved = await resolve([{ url, apiKeyEnvVar: "CRM_KEY" }], {
      ...noLocal,
      env: { CRM_KEY: "k-123" },
    });
    expect(await resolved.tools.find((t) => t.name === "add")?.execute({ a: 1, b: 1 }, ctx())).toBe(
      '{"sum":2}',
    );
    await expect(resolveToolServers([{ url }], noLocal)).rejects.toThrow(
      /could not connect to the MCP server at .*: HTTP 401: Unauthorized: send the API key.* \(no key sent: set toolServers\[0\]\.apiKeyEnvVar to the environment variable holding the server's key\)$/,
    );
    await expect(
      resolveToolServers([{ url, apiKeyEnvVar: "CRM_KEY" }], { ...noLocal, env: { CRM_KEY: "k-wrong" } }),
    ).rejects.toThrow(/HTTP 401: .* \(the key sent is CRM_KEY's value: check it against the server's\)$/);
  });

  it("names the variable when apiKeyEnvVar is not set", async () => {
    await expect(
      resolveToolServers([{ url: "http://127.0.0.1:1/mcp", apiKeyEnvVar: "CRM_KEY" }], noLocal),
    ).rejects.toThrow("toolServers[0].apiKeyEnvVar: environment variable CRM_KEY is not set");
  });

  it("opens a new session and retries when the server forgot the old one", async () => {
    // The idle sweep and Date on a fake clock: with a real 50 ms bound, a loaded machine let the new
    // session expire between the retry's initialize and its initialized notification (CI, load 40).
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      const { url, route } = await remote({ idleTimeoutMs: 50 });
      const resolved = await resolve([{ url }], noLocal);
      await vi.advanceTimersByTimeAsync(200);
      await eventually(() => route.sessionCount() === 0, "the remote session to expire");
      const add = resolved.tools.find((t) => t.name === "add");
      expect(await add?.execute({ a: 2, b: 3 }, ctx())).toBe('{"sum":5}');
      expect(route.sessionCount()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("ends the remote session on close()", async () => {
    const { url, route } = await remote();
    const resolved = await resolveToolServers([{ url }], noLocal);
    expect(route.sessionCount()).toBe(1);
    await resolved.close();
    expect(route.sessionCount()).toBe(0);
    await expect(resolved.tools[0]?.execute({ a: 1, b: 1 }, ctx())).rejects.toThrow(/not connected/);
  });
});
