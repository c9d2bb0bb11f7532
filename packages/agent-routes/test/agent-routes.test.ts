import type { LanguageModelV4 } from "@ai-sdk/provider";
import { AgentsvcError, defineAgent, defineTool, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { connect } from "node:net";
import { Hono } from "hono";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { agentInfo, agentRoutes, agentThreadScope, directStreams } from "../src/index.js";
import { contentOf, listen, postJson, readSse } from "./helpers.js";

/** POSTs a JSON body as the given chunks, without Content-Length (chunked transfer). */
function postChunks(url: string, chunks: Uint8Array[]): Promise<Response> {
  const body = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
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

/** The RunManager's id of an agent-route thread: the route runs its callers' ids in their namespace. */
const scoped = (threadId: string) => agentThreadScope("anonymous") + threadId;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const approveMe = defineTool({
  name: "launch",
  description: "Needs a human",
  input: v.object({ what: v.string() }),
  needsApproval: true,
  execute: ({ what }) => `launched ${what}`,
});

async function setupRoutes(
  opts: {
    tokenDelayMs?: number;
    apiKey?: string;
    model?: LanguageModelV4;
    beforeTurn?: () => void;
    severalInstances?: boolean;
    /** Streams written straight to Node's response (`directStreams`), not through the body. */
    direct?: boolean;
  } = {},
) {
  const memory = new WindowMemory();
  const agent = defineAgent({
    name: "helper",
    model: { provider: "demo", tokenDelayMs: opts.tokenDelayMs },
    tools: [approveMe],
  });
  const runs = new RunManager({ agent, memory, model: opts.model });
  const app = new Hono();
  if (opts.direct) app.use(directStreams());
  app.route(
    "/agent",
    agentRoutes({
      runs,
      info: agentInfo(runs, { apiKey: !!opts.apiKey }),
      apiKey: opts.apiKey,
      beforeTurn: opts.beforeTurn,
      severalInstances: opts.severalInstances,
    }),
  );
  const server = await listen(app);
  closers.push(server.close);
  return { runs, memory, base: `${server.url}/agent` };
}

describe.each([
  ["through the Response body", false],
  ["written straight to Node's response (directStreams)", true],
])("POST /stream, %s", (_how, direct) => {
  const setup = (opts: Parameters<typeof setupRoutes>[0] = {}) => setupRoutes({ ...opts, direct });
  it("sends thread, one chunk envelope per event with ids, then done after the turn is persisted", async () => {
    const { base, memory, runs } = await setup();
    const response = await postJson(`${base}/stream`, { input: "hi there" }, { accept: "text/event-stream" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const threadId = response.headers.get("x-thread-id");
    expect(threadId).toMatch(/^thr_/);
    const events = await readSse(response);
    expect(events[0]).toMatchObject({ event: "thread", data: threadId, id: "0" });
    expect(events.at(-1)).toMatchObject({ event: "done" });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "completed" });
    const chunks = events.slice(1, -1);
    expect(chunks.every((e) => e.event === "chunk")).toBe(true);
    expect(chunks.map((e) => Number(e.id))).toEqual(chunks.map((_, i) => i + 1));
    for (const chunk of chunks) {
      const envelope = JSON.parse(chunk.data);
      expect(envelope.object).toBe("chat.completion.chunk");
      expect(envelope).not.toHaveProperty("token");
    }
    // The writer serializes envelopes itself: the same bytes JSON.stringify gives for the events.
    const replayed: string[] = [];
    for await (const event of runs.get(scoped(threadId!))!.events(0))
      replayed.push(JSON.stringify(event.chunk));
    expect(chunks.map((e) => e.data)).toEqual(replayed);
    expect(contentOf(events)).toContain('You said: "hi there"');
    // The turn was persisted before done was sent.
    expect(await memory.count({ userId: "anonymous", conversationId: "default" })).toBe(2);
  });

  it("writes non-ASCII text as UTF-8, byte-for-byte the events' JSON", async () => {
    const { base, runs } = await setup();
    const response = await postJson(`${base}/stream`, { input: "grüße 👋 — ça va?" });
    const threadId = response.headers.get("x-thread-id")!;
    const events = await readSse(response);
    expect(contentOf(events)).toContain('You said: "grüße 👋 — ça va?"');
    const replayed: string[] = [];
    for await (const event of runs.get(scoped(threadId))!.events(0))
      replayed.push(JSON.stringify(event.chunk));
    expect(events.filter((e) => e.event === "chunk").map((e) => e.data)).toEqual(replayed);
  });

  it("lets a client that hung up reconnect with Last-Event-ID and get exactly what it missed", async () => {
    const { base, runs } = await setup({ tokenDelayMs: 15 });
    const controller = new AbortController();
    const first = await postJson(
      `${base}/stream`,
      { input: "tell me a long story please" },
      {},
      controller.signal,
    );
    const threadId = first.headers.get("x-thread-id")!;
    const seen = await readSse(
      first,
      (events) => events.filter((e) => e.event === "chunk").length >= 3,
      controller,
    );
    const lastId = seen.filter((e) => e.event === "chunk").at(-1)!.id!;
    // Hanging up is not a cancel at once: the run goes on while a reconnect may come (grace period).
    expect(runs.get(scoped(threadId))?.status).toBe("running");
    const again = await postJson(`${base}/stream`, { threadId }, { "last-event-id": lastId });
    expect(again.status).toBe(200);
    const rest = await readSse(again);
    expect(rest[0]).toMatchObject({ event: "thread", data: threadId, id: lastId });
    expect(Number(rest[1]!.id)).toBe(Number(lastId) + 1);
    expect(rest.at(-1)).toMatchObject({ event: "done" });
    const full = (await runs.get(scoped(threadId))!.done).text;
    expect(contentOf(seen) + contentOf(rest)).toBe(full);
    expect((await runs.get(scoped(threadId))!.done).status).toBe("completed");
  });

  it("refuses a reconnect to someone else's or an unknown thread with 404", async () => {
    const { base } = await setup();
    const response = await postJson(`${base}/stream`, { threadId: "thr_unknown" }, { "last-event-id": "3" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ success: false, error: { code: "not_found" } });
  });

  it("with several instances, tells a reconnect for a thread it does not run to go back to its own instance (421)", async () => {
    const { base } = await setup({ severalInstances: true });
    const response = await postJson(
      `${base}/stream`,
      { threadId: "thr_elsewhere" },
      { "last-event-id": "3" },
    );
    expect(response.status).toBe(421);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("reconnect_same_instance");
    expect(body.error.message).toContain("sticky sessions");
  });

  it("ends with an error event and done when the model fails mid-run", async () => {
    const failing: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: "test",
      modelId: "broken",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("unused")),
      doStream: () => Promise.reject(new Error("upstream exploded")),
    };
    const { base } = await setup({ model: failing });
    const events = await readSse(await postJson(`${base}/stream`, { input: "x" }));
    const error = events.find((e) => e.event === "error");
    // The provider's own text stays out of what a client is shown (agent-core's classifier).
    expect(JSON.parse(error!.data)).toEqual({
      code: "model_error",
      message: "The model call failed; try again.",
    });
    expect(events.at(-1)?.event).toBe("done");
  });

  it("emits a middleware_stop chunk when a tool needs approval", async () => {
    const { base, runs } = await setup();
    const response = await postJson(`${base}/stream`, { input: "launch the rocket" });
    const threadId = response.headers.get("x-thread-id")!;
    const events = await readSse(response);
    const stop = JSON.parse(events.at(-2)!.data);
    expect(events.at(-2)!.data).toBe(JSON.stringify(stop));
    expect(stop.kind).toBe("middleware_stop");
    expect(stop.choices[0].delta).toEqual({});
    expect(await runs.pending(scoped(threadId), { userId: "anonymous" })).toMatchObject({
      toolName: "launch",
    });
  });
});

const setup = setupRoutes;

describe("POST /invoke and /batch", () => {
  it("answers one turn as JSON with X-Thread-Id and the given threadId echoed", async () => {
    const { base } = await setup();
    const response = await postJson(`${base}/invoke`, {
      input: "hello",
      threadId: "my-thread",
      conversationId: "c9",
    });
    expect(response.headers.get("x-thread-id")).toBe("my-thread");
    const body = (await response.json()) as any;
    expect(body).toMatchObject({
      success: true,
      threadId: "my-thread",
      conversationId: "c9",
      status: "completed",
      toolCalls: [],
    });
    expect(body.output).toContain('You said: "hello"');
    expect(body.reasoning.length).toBeGreaterThan(0);
  });

  it("runs a caller's threadId in the route's own namespace: a gateway's id names no gateway run, and answers carry the caller's id", async () => {
    const { base, runs } = await setup();
    // A gateway run is keyed gw:<gateway>:<thread>; it is running here.
    const gatewayRun = runs.start({
      input: "launch it",
      threadId: "gw:chat:42",
      userId: "chat",
      conversationId: "42",
    });
    const invoke = await postJson(`${base}/invoke`, { input: "hello", threadId: "gw:chat:42" });
    expect(invoke.status).toBe(200);
    expect(((await invoke.json()) as { threadId: string }).threadId).toBe("gw:chat:42");
    const stream = await postJson(`${base}/stream`, { input: "again", threadId: "gw:chat:42" });
    const events = await readSse(stream);
    expect(events[0]).toMatchObject({ event: "thread", data: "gw:chat:42" });
    expect(runs.get(scoped("gw:chat:42"))?.options.userId).toBe("anonymous");
    expect((await gatewayRun.done).status).toBe("suspended");
    expect(runs.get("gw:chat:42")?.options.userId).toBe("chat");
  });

  it("runs batch inputs as turns of one thread and skips the rest after a suspension", async () => {
    const { base, memory } = await setup();
    const response = await postJson(`${base}/batch`, {
      inputs: ["first", "launch it", "third"],
      conversationId: "b",
    });
    const body = (await response.json()) as any;
    expect(response.headers.get("x-thread-id")).toBe(body.threadId);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual([
      "completed",
      "suspended",
      "skipped",
    ]);
    expect(body.results[0].output).toContain('"first"');
    // Turn 1 persisted; turn 2 waits for a decision.
    expect(await memory.count({ userId: "anonymous", conversationId: "b" })).toBe(2);
  });
});

describe("bad requests", () => {
  it("answers bad bodies with 4xx JSON errors, never a 5xx", async () => {
    const { base } = await setup();
    const cases: [string, RequestInit, number, string][] = [
      ["/invoke", { method: "POST", body: "{}" }, 415, "unsupported_media_type"],
      [
        "/invoke",
        { method: "POST", headers: { "content-type": "text/plain" }, body: "hi" },
        415,
        "unsupported_media_type",
      ],
      [
        "/invoke",
        { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" },
        400,
        "invalid_json",
      ],
      [
        "/invoke",
        { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" },
        400,
        "invalid_body",
      ],
      [
        "/invoke",
        { method: "POST", headers: { "content-type": "application/json" }, body: '{"input":5}' },
        400,
        "invalid_body",
      ],
      [
        "/invoke",
        { method: "POST", headers: { "content-type": "application/json" }, body: "" },
        400,
        "invalid_json",
      ],
      [
        "/stream",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"input":"x","threadId":"a b"}',
        },
        400,
        "invalid_body",
      ],
      [
        "/batch",
        { method: "POST", headers: { "content-type": "application/json" }, body: '{"inputs":[]}' },
        400,
        "invalid_body",
      ],
      [
        "/batch",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ inputs: Array(21).fill("x") }),
        },
        400,
        "invalid_body",
      ],
      [
        "/invoke",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: "x".repeat(1024 * 1024 + 10) }),
        },
        413,
        "too_large",
      ],
      ["/invoke", { method: "GET" }, 404, "not_found"],
    ];
    for (const [path, init, status, code] of cases) {
      const response = await fetch(`${base}${path}`, init);
      expect({ path, status: response.status }).toEqual({ path, status });
      expect(await response.json()).toMatchObject({ success: false, error: { code } });
    }
    // The bare mount path is not a route.
    const bare = await postJson(base, { input: "x" });
    expect(bare.status).toBe(404);
    expect(await bare.json()).toMatchObject({ success: false, error: { code: "not_found" } });
  });

  it("assembles a body sent in small chunks, a multi-byte character split across two of them", async () => {
    const { base } = await setup();
    const bytes = new TextEncoder().encode(JSON.stringify({ input: "naïve café ☕ done" }));
    const split = bytes.indexOf(0xe2) + 1; // inside the three bytes of ☕
    const response = await postChunks(`${base}/invoke`, [bytes.slice(0, split), bytes.slice(split)]);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { output: string }).output).toContain("naïve café ☕ done");
  });

  it("reads bodies the same way without a Node request behind them (fetch-style app.request)", async () => {
    const runs = new RunManager({ agent: defineAgent({ name: "h", model: { provider: "demo" } }) });
    const app = new Hono();
    app.route("/agent", agentRoutes({ runs }));
    const post = (body: string | ReadableStream<Uint8Array>) =>
      app.request("/agent/invoke", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit);
    const ok = await post(JSON.stringify({ input: "without node" }));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { output: string }).output).toContain("without node");
    const big = new Blob([JSON.stringify({ input: "z".repeat(1024 * 1024 + 10) })]).stream();
    const tooLarge = await post(big);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ success: false, error: { code: "too_large" } });
  });

  it("survives a client that drops the connection halfway through a body, and serves the next one", async () => {
    const { base, memory } = await setup();
    const { port } = new URL(base);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          "POST /agent/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n" +
            '{"input": "never fin',
        );
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on("close", () => resolve());
      socket.on("error", reject);
    });
    const next = await postJson(`${base}/invoke`, { input: "after the drop", conversationId: "after" });
    expect(next.status).toBe(200);
    expect(((await next.json()) as { output: string }).output).toContain("after the drop");
    // The dropped request started no turn.
    expect(await memory.count({ userId: "anonymous", conversationId: "default" })).toBe(0);
  });

  it("refuses a too-large body sent without Content-Length (chunked) with 413", async () => {
    const { base } = await setup();
    const big = new TextEncoder().encode(JSON.stringify({ input: "y".repeat(2 * 1024 * 1024) }));
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < big.length; i += 65536) chunks.push(big.slice(i, i + 65536));
    const response = await postChunks(`${base}/invoke`, chunks);
    expect(response.status).toBe(413);
  });

  it("returns 409 thread_busy for a second turn on a running thread and the hook's error from beforeTurn", async () => {
    const { base, runs } = await setup({ tokenDelayMs: 20 });
    const controller = new AbortController();
    const running = await postJson(
      `${base}/stream`,
      { input: "a long enough message to take a while", threadId: "busy" },
      {},
      controller.signal,
    );
    const second = await postJson(`${base}/invoke`, { input: "again", threadId: "busy" });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "thread_busy" } });
    controller.abort();
    await running.body?.cancel().catch(() => {});
    expect(runs.cancel(scoped("busy"), { userId: "anonymous" })).toBe(true);

    const gated = await setup({
      beforeTurn: () => {
        throw new AgentsvcError("forbidden", "conversation belongs to another user", 403);
      },
    });
    const refused = await postJson(`${gated.base}/invoke`, { input: "x" });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "forbidden" } });
  });
});

describe("API key and info", () => {
  it("gates every route with X-API-Key compared in constant time", async () => {
    const { base } = await setup({ apiKey: "s3cret" });
    for (const [path, init] of [
      ["/info", {}],
      ["/invoke", { method: "POST", headers: { "content-type": "application/json" }, body: '{"input":"x"}' }],
    ] as const) {
      const missing = await fetch(`${base}${path}`, init);
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({ error: { code: "api_key_required" } });
      const wrong = await fetch(`${base}${path}`, {
        ...init,
        headers: { ...("headers" in init ? init.headers : {}), "x-api-key": "s3cres" },
      });
      expect(wrong.status).toBe(401);
    }
    const ok = await fetch(`${base}/info`, { headers: { "x-api-key": "s3cret" } });
    expect(ok.status).toBe(200);
  });

  it("describes the agent on GET /info, naming the demo model as such", async () => {
    const { base } = await setup();
    const body = await (await fetch(`${base}/info`)).json();
    expect(body).toEqual({
      success: true,
      agentName: "helper",
      modelName: "agentsvc-demo (scripted demo model)",
      demoModel: true,
      counts: { memories: 0, tools: 1 },
      capabilities: {
        compact: false,
        steer: false,
        cancel: false,
        cancelOnDisconnect: true,
        approvals: true,
        signIn: false,
        apiKey: false,
      },
    });
  });
});
