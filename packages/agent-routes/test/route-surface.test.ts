// The agent route's small promises (README "Exports", "Requests and responses", "Failed turns"):
// the API-key gate on every route, the thread namespace of each user, what /info reports, the
// catch-all 404, unexpected errors told without internals, and a failed turn's retry hints.
import { createHash } from "node:crypto";
import { AgentsvcError, defineAgent, defineTool, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentInfo, agentRoutes, agentThreadScope, apiKeyMatches } from "../src/index.js";
import { withoutPrefix } from "../src/thread-scope.js";
import { listen, postJson, readSse } from "./helpers.js";
import { scriptedRuns } from "./scripted-runs.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  vi.restoreAllMocks();
});

async function mount(app: Hono) {
  const server = await listen(app);
  closers.push(server.close);
  return server.url;
}

function demoRuns(tokenDelayMs?: number) {
  return new RunManager({
    agent: defineAgent({ name: "helper", model: { provider: "demo", tokenDelayMs } }),
    memory: new WindowMemory(),
  });
}

describe("the API-key gate", () => {
  it("answers every route without the right key 401 with its fixed body, and lets the right one through", async () => {
    const key = "kéy-ünïcode-ß";
    const app = new Hono();
    app.route("/agent", agentRoutes({ runs: demoRuns(), apiKey: key }));
    const base = `${await mount(app)}/agent`;
    for (const [path, given] of [
      ["/stream", undefined],
      ["/batch", "kéy-ünïcode-ss"],
      ["/invoke", "kéy-ünïcode-"],
      ["/nowhere", "x"],
    ] as const) {
      const response = await postJson(
        `${base}${path}`,
        { input: "x", inputs: ["x"] },
        given === undefined ? {} : { "x-api-key": given },
      );
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
      expect(await response.json()).toEqual({
        success: false,
        error: { code: "api_key_required", message: "X-API-Key: missing or wrong API key" },
      });
    }
    const ok = await postJson(`${base}/batch`, { inputs: ["x"] }, { "x-api-key": key });
    expect(ok.status).toBe(200);
  });

  it("compares keys of any length, including non-ASCII ones, by their bytes", () => {
    expect(apiKeyMatches("s3cret", "s3cret")).toBe(true);
    expect(apiKeyMatches("s3cret", "s3cre")).toBe(false);
    expect(apiKeyMatches("s3cret", "s3cret-and-more")).toBe(false);
    expect(apiKeyMatches("s3cret", "")).toBe(false);
    expect(apiKeyMatches("s3cret", undefined)).toBe(false);
    expect(apiKeyMatches("ключ", "ключ")).toBe(true);
    expect(apiKeyMatches("ключ", "ключь")).toBe(false);
  });
});

describe("the thread namespace", () => {
  it("is a. plus the first 22 base64url characters of the user id's SHA-256, then /", () => {
    const expected = (userId: string) =>
      `a.${createHash("sha256").update(userId, "utf8").digest("base64url").slice(0, 22)}/`;
    for (const userId of ["anonymous", "ann", "ünïcode", ""]) {
      expect(agentThreadScope(userId)).toBe(expected(userId));
      expect(agentThreadScope(userId)).toHaveLength(25);
    }
    expect(agentThreadScope("ann")).not.toBe(agentThreadScope("bob"));
  });

  it("keeps the namespace out of a 409's message: it names the thread as the caller knows it", async () => {
    const runs = demoRuns(20);
    const app = new Hono();
    app.route("/agent", agentRoutes({ runs }));
    const base = `${await mount(app)}/agent`;
    const controller = new AbortController();
    const running = await postJson(
      `${base}/stream`,
      { input: "a long enough message to take a while", threadId: "busy" },
      {},
      controller.signal,
    );
    const second = await postJson(`${base}/invoke`, { input: "again", threadId: "busy" });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      success: false,
      error: { code: "thread_busy", message: "thread busy has a run in progress or awaiting approval" },
    });
    controller.abort();
    await running.body?.cancel().catch(() => {});
    runs.cancel(`${agentThreadScope("anonymous")}busy`, { userId: "anonymous" });
  });

  it("leaves an error that is not an AgentsvcError as it was thrown, namespace and all (it is logged, not answered)", async () => {
    const prefix = agentThreadScope("ann");
    const error = new Error(`${prefix}t1 broke`);
    await expect(
      withoutPrefix(prefix, () => {
        throw error;
      }),
    ).rejects.toBe(error);
    expect(error.message).toBe(`${prefix}t1 broke`);
  });
});

describe("GET /info with agentInfo", () => {
  it("reports no approvals when no tool needs one, and signIn and apiKey as the service says", async () => {
    const plain = defineTool({
      name: "clock",
      description: "Tells the time",
      input: v.object({}),
      execute: () => "noon",
    });
    const runs = new RunManager({
      agent: defineAgent({ name: "timer", model: { provider: "demo" }, tools: [plain] }),
      memory: new WindowMemory(),
    });
    const app = new Hono();
    app.route("/agent", agentRoutes({ runs, info: agentInfo(runs, { signIn: true, apiKey: true }) }));
    const base = `${await mount(app)}/agent`;
    await postJson(`${base}/invoke`, { input: "hi", conversationId: "c1" });
    const body = (await (await fetch(`${base}/info?conversationId=c1`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      success: true,
      agentName: "timer",
      counts: { memories: 2, tools: 1 },
      capabilities: { approvals: false, signIn: true, apiKey: true, compact: false },
    });
  });

  it("reports approvals when any one tool needs them, and neither sign-in nor an API key unless the service says so", async () => {
    const tool = (name: string, needsApproval: boolean) =>
      defineTool({ name, description: name, input: v.object({}), needsApproval, execute: () => "done" });
    const runs = new RunManager({
      agent: defineAgent({
        name: "mixed",
        model: { provider: "demo" },
        tools: [tool("clock", false), tool("wire_money", true)],
      }),
      memory: new WindowMemory(),
    });
    const body = await agentInfo(runs)(undefined, { userId: "ann", conversationId: "c1" });
    expect(body.capabilities).toMatchObject({ approvals: true, signIn: false, apiKey: false });
  });
});

describe("what the route answers besides its four routes and its turns", () => {
  it("answers an unknown path with a JSON 404 naming the method and path", async () => {
    const app = new Hono();
    app.route("/agent", agentRoutes({ runs: demoRuns() }));
    const base = `${await mount(app)}/agent`;
    const response = await fetch(`${base}/cancel?x=1`, { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: "not_found", message: "no route DELETE /agent/cancel" },
    });
  });

  it("answers an unexpected error 500 internal_error without its text, and logs it", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const app = new Hono();
    app.route(
      "/agent",
      agentRoutes({
        runs: demoRuns(),
        beforeTurn: () => {
          throw new TypeError("secret internals");
        },
      }),
    );
    const base = `${await mount(app)}/agent`;
    for (const path of ["/invoke", "/stream", "/batch"]) {
      const response = await postJson(`${base}${path}`, { input: "x", inputs: ["x"] });
      expect({ path, status: response.status }).toEqual({ path, status: 500 });
      expect(await response.json()).toEqual({
        success: false,
        error: { code: "internal_error", message: "an unexpected error occurred; see the server log" },
      });
    }
    expect(String(logged.mock.calls.flat())).toContain("secret internals");
  });

  it("answers an AgentsvcError from a hook with its own status and message", async () => {
    const app = new Hono();
    app.route(
      "/agent",
      agentRoutes({
        runs: demoRuns(),
        beforeTurn: () => {
          throw new AgentsvcError("approval_pending", "a run in this conversation awaits a decision", 409);
        },
      }),
    );
    const response = await postJson(`${await mount(app)}/agent/stream`, { input: "x" });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: "approval_pending", message: "a run in this conversation awaits a decision" },
    });
  });
});

describe("a failed turn's retry hints", () => {
  async function invokeFailing(error: Record<string, unknown>) {
    const app = new Hono();
    app.route(
      "/agent",
      agentRoutes({
        runs: scriptedRuns([{ status: "failed", text: "", error: error as never }]),
      }),
    );
    return postJson(`${await mount(app)}/agent/invoke`, { input: "x" });
  }

  it("a spent budget is 429 with Retry-After and resetsAt", async () => {
    const response = await invokeFailing({
      code: "budget_exceeded",
      message: "the daily budget is spent",
      retryAfterMs: 3_600_001,
      resetsAt: "2026-12-03T00:00:00.000Z",
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3601");
    expect(((await response.json()) as { error: unknown }).error).toEqual({
      code: "budget_exceeded",
      message: "the daily budget is spent",
      retryAfterMs: 3_600_001,
      resetsAt: "2026-12-03T00:00:00.000Z",
    });
  });

  it("keeps a retryAfterMs of 0 (Retry-After: 0) and drops a negative or non-numeric one or a resetsAt that is not a string", async () => {
    const now = await invokeFailing({ code: "overloaded", message: "busy", retryAfterMs: 0 });
    expect(now.status).toBe(503);
    expect(now.headers.get("retry-after")).toBe("0");
    expect(((await now.json()) as { error: unknown }).error).toEqual({
      code: "overloaded",
      message: "busy",
      retryAfterMs: 0,
    });
    const odd = await invokeFailing({ code: "overloaded", message: "busy", retryAfterMs: -5, resetsAt: 12 });
    expect(odd.headers.get("retry-after")).toBeNull();
    expect(((await odd.json()) as { error: unknown }).error).toEqual({ code: "overloaded", message: "busy" });
    const text = await invokeFailing({ code: "overloaded", message: "busy", retryAfterMs: "5" });
    expect(text.headers.get("retry-after")).toBeNull();
    expect(((await text.json()) as { error: unknown }).error).toEqual({
      code: "overloaded",
      message: "busy",
    });
  });

  it("streams the same hints in the error event", async () => {
    const app = new Hono();
    app.route(
      "/agent",
      agentRoutes({
        runs: scriptedRuns([
          {
            status: "failed",
            error: {
              code: "budget_exceeded",
              message: "spent",
              retryAfterMs: 10,
              resetsAt: "2027-01-01T00:00:00.000Z",
            },
          },
        ]),
      }),
    );
    const events = await readSse(await postJson(`${await mount(app)}/agent/stream`, { input: "x" }));
    expect(JSON.parse(events.find((e) => e.event === "error")!.data)).toEqual({
      code: "budget_exceeded",
      message: "spent",
      retryAfterMs: 10,
      resetsAt: "2027-01-01T00:00:00.000Z",
    });
  });
});
