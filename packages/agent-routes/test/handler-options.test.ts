// createAgentHandlers' options as the webui API uses them (README "Exports"): its own body limit,
// no cancel on hang-up unless given disconnectGraceMs, handlers that work off Node too; and what
// /invoke's answer lists of a turn (its tool calls, no error unless it failed).
import {
  defineAgent,
  RunManager,
  type RunManagerApi,
  type TurnResult,
  WindowMemory,
} from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { type AgentHandlerOptions, agentRoutes, createAgentHandlers } from "../src/index.js";
import { contentOf, listen, postJson, readSse } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function demoRuns(tokenDelayMs?: number) {
  return new RunManager({
    agent: defineAgent({ name: "h", model: { provider: "demo", tokenDelayMs } }),
    memory: new WindowMemory(),
  });
}

async function serveHandlers(runs: RunManagerApi, options: Omit<AgentHandlerOptions, "runs"> = {}) {
  const handlers = createAgentHandlers({ runs, ...options });
  const app = new Hono();
  app.post("/invoke", handlers.invoke);
  app.post("/stream", handlers.stream);
  const server = await listen(app);
  closers.push(server.close);
  return server.url;
}

describe("createAgentHandlers", () => {
  it("applies its own body limit", async () => {
    const url = await serveHandlers(demoRuns(), { bodyLimit: 100 });
    const over = await postJson(`${url}/invoke`, { input: "x".repeat(120) });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("too_large");
    expect((await postJson(`${url}/invoke`, { input: "short" })).status).toBe(200);
  });

  it("does not cancel a run whose stream client hung up unless given disconnectGraceMs", async () => {
    const runs = demoRuns(15);
    const url = await serveHandlers(runs);
    const controller = new AbortController();
    const response = await postJson(
      `${url}/stream`,
      { input: "a message long enough to stream a while" },
      {},
      controller.signal,
    );
    const threadId = response.headers.get("x-thread-id")!;
    const seen = await readSse(
      response,
      (events) => events.filter((e) => e.event === "chunk" && contentOf([e])).length >= 2,
      controller,
    );
    // Hung up mid-run: the run was still going.
    expect(seen.at(-1)?.event).toBe("chunk");
    const result = await runs.get(threadId)!.done;
    expect(result.status).toBe("completed");
  });

  it("answers /invoke off Node (app.request, no Node response to watch) with a grace period set", async () => {
    const runs = demoRuns();
    const handlers = createAgentHandlers({ runs, disconnectGraceMs: 50 });
    const app = new Hono();
    app.post("/invoke", handlers.invoke);
    const response = await app.request("/invoke", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "off node" }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { output: string }).output).toContain("off node");
  });
});

describe("POST /invoke's answer", () => {
  /** Every turn ends with `result` (fields over a completed turn). */
  function endingWith(result: Partial<TurnResult>): RunManagerApi {
    return {
      start: (input) => {
        const done: TurnResult = {
          threadId: input.threadId ?? "thr_1",
          status: "completed",
          text: "",
          reasoning: "",
          toolCalls: [],
          newMessages: [],
          ...result,
        };
        return {
          threadId: done.threadId,
          options: { threadId: done.threadId, userId: input.userId, conversationId: input.conversationId },
          status: done.status,
          done: Promise.resolve(done),
          events: async function* () {},
        };
      },
      get: () => undefined,
      cancel: () => false,
      steer: () => false,
      resume: () => Promise.reject(new Error("unused")),
      pending: async () => undefined,
      onSuspended: () => () => {},
      drain: async () => {},
    };
  }

  it("lists the turn's tool calls by id, name and arguments, and carries no error", async () => {
    const call = { id: "call_1", name: "launch", arguments: { what: "rocket" }, extra: "not for clients" };
    const app = new Hono();
    app.route(
      "/agent",
      agentRoutes({
        runs: endingWith({ status: "suspended", text: "", toolCalls: [call] as TurnResult["toolCalls"] }),
      }),
    );
    const server = await listen(app);
    closers.push(server.close);
    const body = (await (await postJson(`${server.url}/agent/invoke`, { input: "go" })).json()) as Record<
      string,
      unknown
    >;
    expect(body.toolCalls).toEqual([{ id: "call_1", name: "launch", arguments: { what: "rocket" } }]);
    expect(body.status).toBe("suspended");
    expect(body).not.toHaveProperty("error");
    expect(body.success).toBe(true);
  });
});
