import { threadScope } from "../src/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { STREAM_COALESCE_MS } from "../src/routes/agent.js";
import { APPROVAL_TOOL, type Harness, postStream, readSse, startHarness, testAgent } from "./harness.js";
import { coalescedWrites, pacedDemoModel } from "./paced-parts.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("turns: invoke, stream, batch", () => {
  it("invoke answers the standard wire format, echoes X-Thread-Id and creates the conversation row (title, count 2)", async () => {
    h = await startHarness();
    const c = h.client();
    const r = await c.post("/invoke", { input: "Hello there\nfriend", conversationId: "c1" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, conversationId: "c1", status: "completed" });
    expect(typeof r.body.output).toBe("string");
    expect(r.body.output.length).toBeGreaterThan(0);
    expect(r.headers.get("x-thread-id")).toBe(r.body.threadId);
    const row = await h.db.conversations.get("c1");
    expect(row).toMatchObject({ userId: "shared", title: "Hello there friend", messageCount: 2 });
  });

  it("a second turn adds 2 and moves updatedAt but keeps the first title; a rename is never overwritten by later turns", async () => {
    let now = 1_000_000;
    h = await startHarness({ now: () => now });
    const c = h.client();
    await c.post("/invoke", { input: "first message" });
    const before = await h.db.conversations.get("default");
    now += 5000;
    await c.post("/invoke", { input: "second message" });
    const after = await h.db.conversations.get("default");
    expect(after?.title).toBe("first message");
    expect(after?.messageCount).toBe(4);
    expect(after?.updatedAt).toBeGreaterThan(before?.updatedAt ?? Number.POSITIVE_INFINITY);
    await c.post("/conversations/rename", { conversationId: "default", title: "Renamed" });
    await c.post("/invoke", { input: "third message" });
    expect((await h.db.conversations.get("default"))?.title).toBe("Renamed");
  });

  it("stream sends thread first, numbered chunk envelopes, then done after the turn is persisted", async () => {
    h = await startHarness();
    const res = await postStream(h.base, "/stream", { input: "stream please", conversationId: "s1" });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const threadId = res.headers.get("x-thread-id");
    let persistedAtDone: number | undefined;
    const events = await readSse(res, async (e) => {
      if (e.event === "done") persistedAtDone = (await h?.db.conversations.get("s1"))?.messageCount;
    });
    expect(events[0]).toMatchObject({ event: "thread", data: threadId });
    const chunks = events.filter((e) => e.event === "chunk");
    expect(chunks.length).toBeGreaterThan(0);
    const ids = chunks.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const envelope = JSON.parse(chunks[0]?.data ?? "{}");
    expect(envelope.object).toBe("chat.completion.chunk");
    expect(envelope).not.toHaveProperty("token");
    const text = chunks.map((e) => JSON.parse(e.data).choices[0].delta.content ?? "").join("");
    expect(text.length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ event: "done" });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "completed" });
    expect(persistedAtDone).toBe(2);
    const history = (await h.client().get("/history?conversationId=s1")).body;
    expect(history.messages[0]).toEqual({ role: "user", content: "stream please" });
    expect(history.messages.at(-1).role).toBe("assistant");
  });

  it("batch runs inputs as separate turns of one conversation: +2 per input, one threadId", async () => {
    h = await startHarness();
    const r = await h.client().post("/batch", { inputs: ["one", "two", "three"], conversationId: "b1" });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { input: string; status: string }) => [x.input, x.status])).toEqual([
      ["one", "completed"],
      ["two", "completed"],
      ["three", "completed"],
    ]);
    expect(r.headers.get("x-thread-id")).toBe(r.body.threadId);
    expect(await h.db.conversations.get("b1")).toMatchObject({ title: "one", messageCount: 6 });
  });

  it("refuses a turn on another user's conversation with 403 and never changes the owner", async () => {
    h = await startHarness({
      users: [
        { username: "alice", displayName: "A", passwordEnvVar: "PA" },
        { username: "bob", displayName: "B", passwordEnvVar: "PB" },
      ],
      env: { PA: "pa", PB: "pb" },
    });
    const alice = h.client();
    const bob = h.client();
    await alice.login("alice", "pa");
    await bob.login("bob", "pb");
    await alice.post("/invoke", { input: "alice's", conversationId: "shared-id" });
    for (const path of ["/invoke", "/batch"]) {
      const r = await bob.post(path, { input: "bob's", inputs: ["bob's"], conversationId: "shared-id" });
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe("forbidden");
    }
    const s = await postStream(
      h.base,
      "/stream",
      { input: "bob's", conversationId: "shared-id" },
      { cookie: bob.cookie ?? "" },
    );
    expect(s.status).toBe(403);
    expect(await h.db.conversations.get("shared-id")).toMatchObject({
      userId: "alice",
      messageCount: 2,
      title: "alice's",
    });
  });
});

/** A turn of `conversationId` that stops at the approval-gated tool, as invoked. */
async function invokeSuspended(c: ReturnType<Harness["client"]>, conversationId: string) {
  const r = await c.post("/invoke", { input: `use ${APPROVAL_TOOL} now`, conversationId });
  expect(r.body.status).toBe("suspended");
  return r;
}

describe("approvals: suspend, pending, resume", () => {
  it("suspends on an approval-gated tool with a middleware_stop chunk; pending shows the call; resume approve streams the same turn to done", async () => {
    h = await startHarness();
    const c = h.client();
    const res = await postStream(h.base, "/stream", {
      input: `please use ${APPROVAL_TOOL} on notes.txt`,
      conversationId: "a1",
    });
    const threadId = res.headers.get("x-thread-id") ?? "";
    const events = await readSse(res);
    const stop = events
      .filter((e) => e.event === "chunk")
      .map((e) => JSON.parse(e.data))
      .find((ch) => ch.kind === "middleware_stop");
    expect(stop).toBeDefined();
    expect(stop.choices[0].delta).toEqual({});
    expect(events.at(-1)?.event).toBe("done");

    const pending = (await c.get(`/pending?threadId=${threadId}`)).body.pending;
    expect(pending).toMatchObject({
      threadId,
      toolName: APPROVAL_TOOL,
      allowedDecisions: expect.arrayContaining(["approve", "reject"]),
    });
    expect(typeof pending.createdAt).toBe("number");

    // Nothing may silently drop the waiting approval.
    const clear = await c.post("/clear", { conversationId: "a1" });
    expect(clear.status).toBe(409);
    expect(clear.body.error.code).toBe("approval_pending");
    expect((await c.post("/conversations/delete", { conversationId: "a1" })).status).toBe(409);
    expect((await c.post("/invoke", { input: "new message", conversationId: "a1" })).status).toBe(409);

    const resumed = await postStream(h.base, "/resume", {
      threadId,
      decision: "approve",
      decidedBy: "mallory",
      userId: "mallory",
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("x-thread-id")).toBe(threadId);
    const more = await readSse(resumed);
    expect(more[0]).toMatchObject({ event: "thread", data: threadId });
    expect(more.at(-1)).toMatchObject({ event: "done" });
    expect(JSON.parse(more.at(-1)!.data)).toMatchObject({ status: "completed" });
    const firstIds = events.filter((e) => e.event === "chunk").map((e) => Number(e.id));
    const laterIds = more.filter((e) => e.event === "chunk").map((e) => Number(e.id));
    expect(Math.min(...laterIds)).toBeGreaterThan(Math.max(...firstIds));

    expect((await c.get(`/pending?threadId=${threadId}`)).body.pending).toBeNull();
    const history = (await c.get("/history?conversationId=a1")).body.messages;
    const toolResult = history.find((m: { role: string }) => m.role === "tool");
    expect(toolResult.toolName).toBe(APPROVAL_TOOL);
    expect(toolResult.isError).toBeFalsy();
    expect(JSON.stringify(toolResult.result)).toContain("deleted");
    expect((await c.post("/clear", { conversationId: "a1" })).status).toBe(200);
  });

  it("clear and delete of a conversation whose decided run is still finishing answer thread_busy, not approval_pending", async () => {
    h = await startHarness();
    const c = h.client();
    const r = await invokeSuspended(c, "a4");
    // The moment between the decision being recorded and the continued turn being saved: the
    // checkpoint row carries the decision (what RunManager writes before it continues).
    const scoped = threadScope("shared") + r.body.threadId;
    const run = await h.db.runStore.get(scoped);
    if (!run) throw new Error("no suspended run saved");
    await h.db.runStore.save({
      ...run,
      continuation: { phase: "decided", decision: { decision: "approve", decidedBy: "shared" } },
    });
    for (const route of ["/clear", "/conversations/delete"]) {
      const refused = await c.post(route, { conversationId: "a4" });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("thread_busy");
      expect(refused.body.error.message).toContain("still finishing");
      expect(refused.body.error.message).toContain(r.body.threadId);
    }
  });

  it("resume reject gives the model a rejection and never runs the tool", async () => {
    h = await startHarness();
    const c = h.client();
    const r = await invokeSuspended(c, "a2");
    const more = await readSse(
      await postStream(h.base, "/resume", {
        threadId: r.body.threadId,
        decision: "reject",
        reason: "not today",
      }),
    );
    expect(more.at(-1)?.event).toBe("done");
    const history = (await c.get("/history?conversationId=a2")).body.messages;
    const toolResult = history.find((m: { role: string }) => m.role === "tool");
    expect(JSON.stringify(toolResult)).not.toContain("deleted ");
    expect(JSON.stringify(toolResult)).toMatch(/reject/i);
  });

  it("the owner can abandon a waiting approval with /cancel: nothing stays pending and clear works again", async () => {
    h = await startHarness();
    const c = h.client();
    const r = await invokeSuspended(c, "a3");
    const scoped = threadScope("shared") + r.body.threadId;
    const suspended = h.runs.get(scoped);
    expect((await c.post("/cancel", { threadId: r.body.threadId })).body).toEqual({
      success: true,
      cancelled: true,
    });
    let pending: unknown = "still";
    for (let i = 0; i < 50 && pending !== null; i++) {
      pending = (await c.get(`/pending?threadId=${r.body.threadId}`)).body.pending;
      if (pending !== null) await new Promise((done) => setTimeout(done, 20));
    }
    expect(pending).toBeNull();
    // The cancel closes the turn in a continuation of its own; /pending may answer null (the
    // decision is written) a moment before that continuation's handle replaces the suspended one.
    for (let i = 0; i < 50 && h.runs.get(scoped) === suspended; i++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    expect(h.runs.get(scoped)).not.toBe(suspended);
    await h.runs.get(scoped)?.done;
    expect((await c.post("/clear", { conversationId: "a3" })).status).toBe(200);
  });

  it("resume of nothing pending is 403 (as for a stranger's run) and a bad decision is 400, both as JSON", async () => {
    h = await startHarness();
    const c = h.client();
    const none = await c.post("/resume", { threadId: "thr_nothing", decision: "approve" });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe("forbidden");
    const bad = await c.post("/resume", { threadId: "thr_nothing", decision: "maybe" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/decision: expected one of approve, reject, edit/);
  });
});

describe("run control: cancel and steer", () => {
  it("cancel stops a running turn at its next checkpoint; the invoke answers status cancelled", async () => {
    h = await startHarness({ agent: testAgent({ tokenDelayMs: 40 }) });
    const c = h.client();
    const turn = c.post("/invoke", {
      input: "tell me a long story about many things",
      threadId: "t-cancel",
      conversationId: "k1",
    });
    let cancelled = false;
    for (let i = 0; i < 100 && !cancelled; i++) {
      cancelled = (await c.post("/cancel", { threadId: "t-cancel", reason: "stop" })).body.cancelled;
      if (!cancelled) await new Promise((r) => setTimeout(r, 20));
    }
    expect(cancelled).toBe(true);
    const r = await turn;
    expect(r.body.status).toBe("cancelled");
    expect((await c.post("/cancel", { threadId: "t-cancel" })).body).toEqual({
      success: true,
      cancelled: false,
    });
  });

  it("steer splices the message into the running turn: one turn, the steer text in history", async () => {
    h = await startHarness({ agent: testAgent({ tokenDelayMs: 30 }) });
    const c = h.client();
    const res = await postStream(h.base, "/stream", {
      input: "start talking",
      threadId: "t-steer",
      conversationId: "st",
    });
    let steered: boolean | undefined;
    await readSse(res, async (e) => {
      if (e.event === "chunk" && steered === undefined) {
        steered = (await c.post("/steer", { threadId: "t-steer", input: "also mention ducks" })).body.steered;
      }
    });
    expect(steered).toBe(true);
    const history = (await c.get("/history?conversationId=st")).body.messages;
    expect(
      history.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content),
    ).toEqual(["start talking", "also mention ducks"]);
    expect((await h.db.conversations.get("st"))?.messageCount).toBe(2);
    expect((await c.post("/steer", { threadId: "t-steer", input: "late" })).body).toEqual({
      success: true,
      steered: false,
    });
  });
});

describe("stream writes", () => {
  it("sends a fast model's tokens a window's worth per network read, every token still its own chunk", async () => {
    // 80 tokens, one every 5 ms: about 400 ms of streaming, so about 8 windows of 50 ms.
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
    const paced = pacedDemoModel({ tokenDelayMs: 5, script: [{ text: words }] });
    h = await startHarness({ agent: testAgent(), model: paced.model });
    const res = await postStream(h.base, "/stream", { input: "go", conversationId: "fast" });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let readsWithChunks = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const part = decoder.decode(value, { stream: true });
      if (part.includes("event: chunk")) readsWithChunks++;
      text += part;
    }
    const chunks = text.split("event: chunk\n").length - 1;
    const content = [...text.matchAll(/"content":("(?:[^"\\]|\\.)*")/g)]
      .map((m) => JSON.parse(m[1] as string) as string)
      .join("");
    expect(content).toBe(words);
    expect(chunks).toBeGreaterThanOrEqual(80);
    // Written per token, nearly every chunk would arrive in a read of its own. The windows are
    // counted from the times the model's parts actually left it: on a loaded machine tokens 5 ms
    // apart may come 50 ms or more apart, each then rightly a write of its own (CI at load ~40: 25
    // reads of 100 chunks, red against the fixed quarter).
    expect(readsWithChunks).toBeLessThanOrEqual(coalescedWrites(paced.times, STREAM_COALESCE_MS));
  });
});

describe("faults", () => {
  it("a client that drops the stream socket mid-turn does not cancel it: the turn completes and is persisted", async () => {
    h = await startHarness({ agent: testAgent({ tokenDelayMs: 20 }) });
    const controller = new AbortController();
    const res = await fetch(`${h.base}/stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ input: "a long answer please", threadId: "t-drop", conversationId: "drop" }),
      signal: controller.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    const result = await h.runs.get(`${threadScope("shared")}t-drop`)?.done;
    expect(result?.status).toBe("completed");
    const history = (await h.client().get("/history?conversationId=drop")).body.messages;
    expect(history.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    expect((await h.db.conversations.get("drop"))?.messageCount).toBe(2);
    expect((await h.client().get("/health")).status).toBe(200);
  });
});

describe("clear, compact, history", () => {
  it("clear empties the conversation's messages and resets its count, leaving other conversations alone", async () => {
    h = await startHarness();
    const c = h.client();
    await c.post("/invoke", { input: "one", conversationId: "x" });
    await c.post("/invoke", { input: "two", conversationId: "y" });
    expect((await c.post("/clear", { conversationId: "x" })).body).toEqual({ success: true, cleared: true });
    expect((await c.get("/history?conversationId=x")).body.messages).toEqual([]);
    expect(await h.db.conversations.get("x")).toMatchObject({ messageCount: 0, title: "one" });
    expect((await c.get("/history?conversationId=y")).body.messages.length).toBeGreaterThan(0);
  });

  it("clear without a conversationId clears the default conversation", async () => {
    h = await startHarness();
    const c = h.client();
    await c.post("/invoke", { input: "hello" });
    await c.send("POST", "/clear");
    expect((await c.get("/history")).body).toEqual({
      success: true,
      conversationId: "default",
      messages: [],
      pending: [],
    });
  });

  it("compact is a silent no-op without a summary model, reporting the unchanged count", async () => {
    h = await startHarness();
    const c = h.client();
    await c.post("/invoke", { input: "one" });
    await c.post("/invoke", { input: "two" });
    const before = (await c.get("/history")).body.messages.length;
    const r = await c.post("/compact", {
      keepRecent: 1,
      summaryModel: "gpt-evil",
      summaryProvider: "openai",
    });
    expect(r.body).toEqual({ success: true, compacted: false, before, after: before });
    expect((await c.get("/history")).body.messages.length).toBe(before);
  });

  it("compact with a summary model replaces older messages by a summary and keeps the most recent; at or under keepRecent it is a no-op", async () => {
    h = await startHarness({ agent: testAgent({ summary: true }) });
    const c = h.client();
    expect((await c.get("/info")).body.capabilities.compact).toBe(true);
    for (const input of ["one", "two", "three"]) await c.post("/invoke", { input });
    const before = (await c.get("/history")).body.messages.length;
    const noop = await c.post("/compact", { keepRecent: before });
    expect(noop.body).toEqual({ success: true, compacted: false, before, after: before });
    const r = await c.post("/compact", { keepRecent: 2 });
    expect(r.body.compacted).toBe(true);
    expect(r.body.before).toBe(before);
    expect(r.body.after).toBeLessThan(before);
    const after = (await c.get("/history")).body.messages;
    expect(after.length).toBe(r.body.after);
    expect(JSON.stringify(after[0])).toMatch(/Summary/);
  });

  it("compact refuses a keepRecent that is not a non-negative integer", async () => {
    h = await startHarness();
    for (const keepRecent of [-1, 1.5, "3", true]) {
      const r = await h.client().post("/compact", { keepRecent });
      expect(r.status, String(keepRecent)).toBe(400);
      expect(r.body.error.message).toMatch(/keepRecent: expected an integer >= 0/);
    }
  });
});
