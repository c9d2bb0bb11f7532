// Stop means stop: a client that hangs up /stream cancels its run and the provider request, after
// a grace period in which it may reconnect; a run waiting for an approval stays.
import { defineAgent, defineTool, RunManager, WindowMemory } from "@agentsvc/agent-core";
import { Hono } from "hono";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentInfo, agentRoutes, agentThreadScope, directStreams } from "../src/index.js";
import { contentOf, listen, postJson, readSse } from "./helpers.js";
import { type Plan, type SlowProvider, slowProvider } from "./slow-provider.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const scoped = (threadId: string) => agentThreadScope("anonymous") + threadId;

/** Settles with `late` when `promise` has not settled within `ms` (bounds a fault test). */
const within = <T>(promise: Promise<T>, ms: number, late: T): Promise<T> =>
  Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(late), ms).unref())]);

/** Streams through the Response body, or straight to Node's response (`directStreams`, as the server does). */
let direct = false;

async function serve(model: ConstructorParameters<typeof RunManager>[0]["agent"]["model"], graceMs: number) {
  const launch = defineTool({
    name: "launch",
    description: "Needs a human",
    input: v.object({ what: v.string() }),
    needsApproval: true,
    execute: ({ what }) => `launched ${what}`,
  });
  const runs = new RunManager({
    agent: defineAgent({ name: "helper", model, tools: [launch] }),
    memory: new WindowMemory(),
  });
  const app = new Hono();
  if (direct) app.use(directStreams());
  app.route("/agent", agentRoutes({ runs, info: agentInfo(runs), disconnectGraceMs: graceMs }));
  const server = await listen(app);
  closers.push(server.close);
  return { runs, base: `${server.url}/agent` };
}

async function withProvider(plans: Plan[], graceMs: number) {
  const provider: SlowProvider = await slowProvider(plans);
  closers.push(provider.close);
  const served = await serve(
    { provider: "openai-compatible", model: "slow-model", baseURL: provider.baseURL },
    graceMs,
  );
  return { provider, ...served };
}

/** Opens /stream and hangs up once `chunks` chunks with text arrived. */
async function hangUpAfter(base: string, body: Record<string, unknown>, chunks: number) {
  const controller = new AbortController();
  const response = await postJson(`${base}/stream`, body, {}, controller.signal);
  const seen = await readSse(
    response,
    (events) => events.filter((e) => e.event === "chunk" && contentOf([e])).length >= chunks,
    controller,
  );
  return { threadId: response.headers.get("x-thread-id")!, seen };
}

describe.each([
  ["through the Response body", false],
  ["written straight to Node's response (directStreams)", true],
])("a client that hangs up POST /stream, %s", (_how, directly) => {
  beforeEach(() => {
    direct = directly;
  });

  it("cancels the run and aborts the provider's 30 s stream, and the thread takes a new turn", async () => {
    const { base, runs, provider } = await withProvider(
      [
        { words: 300, everyMs: 100 },
        { words: 2, everyMs: 1 },
      ],
      50,
    );
    const { threadId } = await hangUpAfter(base, { input: "tell me everything", threadId: "t1" }, 2);
    expect(await within(provider.ends[0]!, 5000, "still streaming")).toBe("aborted");
    const ended = await within(runs.get(scoped(threadId))!.done, 5000, undefined);
    expect(ended?.status).toBe("cancelled");
    // The thread is free: no 409 thread_busy.
    const next = await postJson(`${base}/invoke`, { input: "again", threadId });
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ status: "completed", output: "word0 word1 " });
  });

  it("does not cancel a run whose client reconnects with Last-Event-ID within the grace period", async () => {
    const { base, runs, provider } = await withProvider([{ words: 8, everyMs: 60 }], 150);
    const { threadId, seen } = await hangUpAfter(base, { input: "go", threadId: "t2" }, 2);
    const lastId = seen.filter((e) => e.event === "chunk").at(-1)!.id!;
    const again = await postJson(`${base}/stream`, { threadId }, { "last-event-id": lastId });
    const rest = await readSse(again);
    expect(JSON.parse(rest.at(-1)!.data)).toMatchObject({ status: "completed" });
    expect(await provider.ends[0]).toBe("complete");
    expect((await runs.get(scoped(threadId))!.done).text).toBe(contentOf(seen) + contentOf(rest));
  });

  it("leaves a run that is waiting for an approval", async () => {
    const launch = { name: "launch", arguments: '{"what":"rocket"}' };
    const { base, runs } = await withProvider([{ words: 3, everyMs: 100, toolCall: launch }], 1000);
    // Hung up while the model still streams; the run then suspends within the grace period.
    const { threadId } = await hangUpAfter(base, { input: "launch it", threadId: "t3" }, 1);
    const handle = runs.get(scoped(threadId))!;
    expect(handle.status).toBe("running");
    expect((await handle.done).status).toBe("suspended");
    // Past the grace period a cancel would have closed the request.
    await new Promise((r) => setTimeout(r, 1200));
    expect(handle.status).toBe("suspended");
    expect(await runs.pending(scoped(threadId), { userId: "anonymous" })).toMatchObject({
      toolName: "launch",
    });
  });
});

describe("a client that hangs up POST /invoke", () => {
  it("cancels the run and aborts the provider's 30 s stream, and the thread takes a new turn", async () => {
    const { base, runs, provider } = await withProvider(
      [
        { words: 300, everyMs: 100 },
        { words: 2, everyMs: 1 },
      ],
      50,
    );
    const controller = new AbortController();
    const invoked = postJson(
      `${base}/invoke`,
      { input: "tell me everything", threadId: "t4" },
      {},
      controller.signal,
    );
    invoked.catch(() => {});
    // Hang up once the provider is streaming.
    for (let i = 0; i < 100 && provider.ends.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(runs.get(scoped("t4"))?.status).toBe("running");
    controller.abort();
    expect(await within(provider.ends[0]!, 5000, "still streaming")).toBe("aborted");
    expect((await within(runs.get(scoped("t4"))!.done, 5000, undefined))?.status).toBe("cancelled");
    const next = await postJson(`${base}/invoke`, { input: "again", threadId: "t4" });
    expect(next.status).toBe(200);
  });
});

describe("GET /info", () => {
  it("advertises no cancel or steer route (there are none) and that hanging up cancels", async () => {
    const { base } = await serve({ provider: "demo" }, 50);
    const body = (await (await fetch(`${base}/info`)).json()) as { capabilities: Record<string, boolean> };
    expect(body.capabilities).toMatchObject({ cancel: false, steer: false, cancelOnDisconnect: true });
  });
});
