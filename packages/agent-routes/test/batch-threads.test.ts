// POST /batch runs its inputs as turns of one thread (README "/batch"): the requested one, or the
// one the first turn mints; a turn that cannot start after the first ends the batch with a failed
// row that tells the client no more than /invoke would.
import { defineAgent, RunManager, type StartRunInput, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type AgentRoutesOptions, agentRoutes, agentThreadScope } from "../src/index.js";
import { listen, postJson } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  vi.restoreAllMocks();
});

class RecordingRuns extends RunManager {
  readonly starts: StartRunInput[] = [];
  override start(input: StartRunInput) {
    this.starts.push(input);
    return super.start(input);
  }
}

async function serve(options: Omit<AgentRoutesOptions, "runs"> = {}) {
  const memory = new WindowMemory();
  const runs = new RecordingRuns({ agent: defineAgent({ name: "h", model: { provider: "demo" } }), memory });
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs, ...options }));
  const server = await listen(app);
  closers.push(server.close);
  return { url: `${server.url}/agent/batch`, runs, memory };
}

const scope = agentThreadScope("anonymous");

interface BatchBody {
  success: boolean;
  threadId: string;
  conversationId: string;
  results: { input: string; status: string; output: string; error?: { code: string; message: string } }[];
}

describe("POST /batch", () => {
  it("runs every input on the requested thread and answers with it", async () => {
    const { url, runs, memory } = await serve();
    const response = await postJson(url, { inputs: ["a", "b", "c"], threadId: "mine", conversationId: "c" });
    expect(response.headers.get("x-thread-id")).toBe("mine");
    const body = (await response.json()) as BatchBody;
    expect(body).toMatchObject({ success: true, threadId: "mine", conversationId: "c" });
    expect(body.results.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(runs.starts.map((s) => s.threadId)).toEqual([`${scope}mine`, `${scope}mine`, `${scope}mine`]);
    expect(await memory.count({ userId: "anonymous", conversationId: "c" })).toBe(6);
  });

  it("runs the later inputs on the thread the first one minted", async () => {
    const { url, runs } = await serve();
    const response = await postJson(url, { inputs: ["a", "b"] });
    const body = (await response.json()) as BatchBody;
    expect(body.threadId).toMatch(/^thr_/);
    expect(response.headers.get("x-thread-id")).toBe(body.threadId);
    expect(runs.starts.map((s) => s.threadId)).toEqual([
      `${scope}${body.threadId}`,
      `${scope}${body.threadId}`,
    ]);
  });

  it("ends with a failed internal_error row, without the error's text, when a later turn throws something unexpected", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    let turns = 0;
    const { url } = await serve({
      beforeTurn: () => {
        turns += 1;
        if (turns === 2) throw new Error("connection string postgres://admin:hunter2@db");
      },
    });
    const response = await postJson(url, { inputs: ["a", "b", "c"] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as BatchBody;
    expect(body.results.map((r) => r.status)).toEqual(["completed", "failed", "skipped"]);
    expect(body.results[1]).toEqual({
      input: "b",
      status: "failed",
      output: "",
      error: { code: "internal_error", message: "an unexpected error occurred; see the server log" },
    });
    expect(JSON.stringify(body)).not.toContain("hunter2");
    // The operator still finds it in the log.
    expect(String(logged.mock.calls.flat())).toContain("hunter2");
  });
});
