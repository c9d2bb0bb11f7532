// The hooks a mounting service gives the handlers (README "Exports"): who the caller is
// (resolveUser), which conversation a request without one goes to (defaultConversation), what
// /info says for them, what afterTurn is told, and the files a message carries (attachmentsOf).
import {
  type AttachmentRef,
  AgentsvcError,
  defineAgent,
  RunManager,
  type StartRunInput,
  type TurnResult,
  WindowMemory,
} from "@agentsvc/agent-core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgentHandlerOptions,
  agentRoutes,
  agentThreadScope,
  createAgentHandlers,
} from "../src/index.js";
import { listen, postJson, readSse } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A RunManager that remembers what each turn was started with. */
class RecordingRuns extends RunManager {
  readonly starts: StartRunInput[] = [];
  override start(input: StartRunInput) {
    this.starts.push(input);
    return super.start(input);
  }
}

function newRuns(tokenDelayMs?: number) {
  const memory = new WindowMemory();
  const runs = new RecordingRuns({
    agent: defineAgent({ name: "h", model: { provider: "demo", tokenDelayMs } }),
    memory,
  });
  return { runs, memory };
}

/** The four handlers under one path, as the webui API mounts them; the caller is named by the test's server. */
async function serveHandlers(options: Omit<AgentHandlerOptions, "runs">, tokenDelayMs?: number) {
  const { runs, memory } = newRuns(tokenDelayMs);
  const handlers = createAgentHandlers({
    runs,
    // Stands in for a session lookup (server-side identity).
    resolveUser: (c) => c.req.header("x-test-user") ?? "nobody",
    ...options,
  });
  const app = new Hono();
  app.post("/invoke", handlers.invoke);
  app.post("/stream", handlers.stream);
  app.post("/batch", handlers.batch);
  app.get("/info", handlers.info);
  const server = await listen(app);
  closers.push(server.close);
  return { url: server.url, runs, memory };
}

async function serveRoute(options: Omit<AgentHandlerOptions, "runs">, tokenDelayMs?: number) {
  const { runs, memory } = newRuns(tokenDelayMs);
  const app = new Hono();
  app.route("/agent", agentRoutes({ runs, ...options }));
  const server = await listen(app);
  closers.push(server.close);
  return { base: `${server.url}/agent`, runs, memory };
}

const ann = { "x-test-user": "ann" };

describe("resolveUser and defaultConversation", () => {
  it("run every turn as the resolved user, in the user's default conversation when the body names none", async () => {
    const { url, memory, runs } = await serveHandlers({ defaultConversation: (userId) => `home-${userId}` });
    const invoke = await postJson(`${url}/invoke`, { input: "one" }, ann);
    expect(await invoke.json()).toMatchObject({ success: true, conversationId: "home-ann" });
    await readSse(await postJson(`${url}/stream`, { input: "two" }, ann));
    const batch = await postJson(`${url}/batch`, { inputs: ["three"] }, ann);
    expect(await batch.json()).toMatchObject({ success: true, conversationId: "home-ann" });
    expect(await memory.count({ userId: "ann", conversationId: "home-ann" })).toBe(6);
    expect(runs.starts.map((s) => [s.userId, s.conversationId])).toEqual([
      ["ann", "home-ann"],
      ["ann", "home-ann"],
      ["ann", "home-ann"],
    ]);
    // A conversation the body names wins over the default.
    const named = await postJson(`${url}/invoke`, { input: "four", conversationId: "side" }, ann);
    expect(await named.json()).toMatchObject({ conversationId: "side" });
    expect(await memory.count({ userId: "ann", conversationId: "side" })).toBe(2);
  });

  it("without them, every caller is anonymous in the conversation named default", async () => {
    const { base, memory } = await serveRoute({});
    const invoke = await postJson(`${base}/invoke`, { input: "one" }, ann);
    expect(await invoke.json()).toMatchObject({ conversationId: "default" });
    expect(await memory.count({ userId: "anonymous", conversationId: "default" })).toBe(2);
  });
});

describe("GET /info", () => {
  it("asks info for the resolved user and the query's conversation, else the default one", async () => {
    const asked: unknown[] = [];
    const { url } = await serveHandlers({
      defaultConversation: (userId) => `home-${userId}`,
      info: (_c, user) => {
        asked.push(user);
        return {
          agentName: "h",
          modelName: "m",
          demoModel: true,
          counts: { memories: 0, tools: 0 },
          capabilities: { compact: false },
        };
      },
    });
    const plain = await fetch(`${url}/info`, { headers: ann });
    expect(await plain.json()).toEqual({
      success: true,
      agentName: "h",
      modelName: "m",
      demoModel: true,
      counts: { memories: 0, tools: 0 },
      capabilities: { compact: false },
    });
    await fetch(`${url}/info?conversationId=side`, { headers: ann });
    await fetch(`${url}/info?conversationId=`, { headers: ann });
    expect(asked).toEqual([
      { userId: "ann", conversationId: "home-ann" },
      { userId: "ann", conversationId: "side" },
      { userId: "ann", conversationId: "home-ann" },
    ]);
  });

  it("is a JSON 404 when the route was given no info", async () => {
    const { base } = await serveRoute({});
    const response = await fetch(`${base}/info`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: "not_found", message: "no info configured for this route" },
    });
  });

  it("answers a throwing info with the error's own status", async () => {
    const { url } = await serveHandlers({
      info: () => {
        throw new AgentsvcError("forbidden", "sign in first", 403);
      },
    });
    const response = await fetch(`${url}/info`);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: "forbidden", message: "sign in first" },
    });
  });
});

describe("afterTurn", () => {
  it("is told the caller's threadId (not the route's namespaced one), the input, user and conversation, before the answer", async () => {
    const seen: { threadId: string; text: string; turn: unknown }[] = [];
    const { base, runs } = await serveRoute({
      afterTurn: (_c, result: TurnResult, turn) => {
        seen.push({ threadId: result.threadId, text: result.text, turn });
      },
    });
    const named = await postJson(`${base}/invoke`, { input: "hello", threadId: "mine", conversationId: "c" });
    const answer = (await named.json()) as { output: string };
    expect(seen).toEqual([
      {
        threadId: "mine",
        text: answer.output,
        turn: { userId: "anonymous", conversationId: "c", input: "hello" },
      },
    ]);
    // A minted thread: the hook sees the id the client gets, the run lives under the namespace.
    const stream = await postJson(`${base}/stream`, { input: "again" });
    const minted = stream.headers.get("x-thread-id")!;
    const events = await readSse(stream);
    expect(events[0]).toMatchObject({ event: "thread", data: minted });
    expect(minted).toMatch(/^thr_/);
    expect(seen[1]?.threadId).toBe(minted);
    expect(runs.get(agentThreadScope("anonymous") + minted)?.status).toBe("completed");
    expect(runs.starts.map((s) => s.threadId)).toEqual([
      `${agentThreadScope("anonymous")}mine`,
      `${agentThreadScope("anonymous")}${minted}`,
    ]);
  });

  it("is not asked for when absent, and a thread without a namespace is the run's own minted id", async () => {
    const { url, runs } = await serveHandlers({});
    const response = await postJson(`${url}/invoke`, { input: "hello" }, ann);
    const { threadId } = (await response.json()) as { threadId: string };
    expect(response.headers.get("x-thread-id")).toBe(threadId);
    expect(runs.starts[0]?.threadId).toBeUndefined();
    expect(runs.starts[0]?.onPersisted).toBeUndefined();
    expect(runs.get(threadId)?.options.userId).toBe("ann");
  });
});

describe("attachmentsOf", () => {
  const file: AttachmentRef = { refused: "size", kind: "image", name: "huge.png", size: 99 };

  it("stores a message's files on its turn, and takes a message that is only files", async () => {
    const bodies: unknown[] = [];
    const { url, runs, memory } = await serveHandlers({
      attachmentsOf: async (_c, body, userId) => {
        bodies.push([body, userId]);
        return Array.isArray(body.files) ? [file] : [];
      },
    });
    const invoke = await postJson(`${url}/invoke`, { files: [1], conversationId: "f" }, ann);
    expect(invoke.status).toBe(200);
    await readSse(
      await postJson(`${url}/stream`, { input: "see this", files: [1], conversationId: "f" }, ann),
    );
    expect(runs.starts.map((s) => [s.input, s.attachments])).toEqual([
      ["", [file]],
      ["see this", [file]],
    ]);
    expect(bodies[0]).toEqual([{ files: [1], conversationId: "f" }, "ann"]);
    const stored = await memory.load({ userId: "ann", conversationId: "f" });
    expect(
      stored.filter((m) => m.role === "user").map((m) => (m as { attachments?: unknown }).attachments),
    ).toEqual([[file], [file]]);
  });

  it("without files a message still needs its input, and no empty attachment list reaches the run", async () => {
    const { url, runs } = await serveHandlers({ attachmentsOf: async () => [] });
    const empty = await postJson(`${url}/invoke`, { conversationId: "f" }, ann);
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe("invalid_body");
    expect((await postJson(`${url}/invoke`, { input: "plain" }, ann)).status).toBe(200);
    expect(runs.starts).toHaveLength(1);
    expect("attachments" in runs.starts[0]!).toBe(false);
  });

  it("refuses a message whose files the hook refuses, with the hook's error", async () => {
    const { url, runs } = await serveHandlers({
      attachmentsOf: async () => {
        throw new AgentsvcError("invalid_body", "attachments: unknown upload", 400);
      },
    });
    const response = await postJson(`${url}/stream`, { input: "x", files: [1] }, ann);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: "invalid_body", message: "attachments: unknown upload" },
    });
    expect(runs.starts).toHaveLength(0);
  });
});
