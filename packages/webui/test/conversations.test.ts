import { afterEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("conversation index routes", () => {
  it("create mints a fresh conversationId and stores the optional title collapsed to one line of at most 60 characters", async () => {
    h = await startHarness();
    const c = h.client();
    const a = await c.post("/conversations/create", { title: `  Plans\nfor\t${"x".repeat(80)}  ` });
    expect(a.status).toBe(200);
    expect(a.body.success).toBe(true);
    expect(a.body.title).toBe(`Plans for ${"x".repeat(50)}`);
    const b = await c.post("/conversations/create", {});
    expect(b.body.conversationId).not.toBe(a.body.conversationId);
    expect(b.body.title).toBe("");
    expect((await h.db.conversations.get(a.body.conversationId))?.userId).toBe("shared");
  });

  it("lists newest activity first with message counts", async () => {
    let now = 1_000_000;
    h = await startHarness({ now: () => now });
    const c = h.client();
    const first = (await c.post("/conversations/create", { title: "first" })).body.conversationId;
    now += 1000;
    const second = (await c.post("/conversations/create", { title: "second" })).body.conversationId;
    now += 1000;
    await h.db.conversations.recordTurn({ userId: "shared", conversationId: first, userMessage: "hi" });
    const list = (await c.get("/conversations")).body.conversations;
    expect(list.map((r: { conversationId: string }) => r.conversationId)).toEqual([first, second]);
    expect(list[0]).toEqual({ conversationId: first, title: "first", updatedAt: now, messageCount: 2 });
    expect(list[1].messageCount).toBe(0);
  });

  it("lists one page of the newest conversations with hasMore, and refuses a bad limit", async () => {
    let now = 1_000;
    h = await startHarness({ now: () => now++ });
    const c = h.client();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await c.post("/conversations/create", { title: `c${i}` })).body.conversationId);
    const page = (await c.get("/conversations?limit=2")).body;
    expect(page.conversations.map((r: { conversationId: string }) => r.conversationId)).toEqual([
      ids[4],
      ids[3],
    ]);
    expect(page.hasMore).toBe(true);
    // The next pages follow nextCursor down to the oldest, each row once; the last has no cursor.
    const second = (await c.get(`/conversations?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`)).body;
    expect(second.conversations.map((r: { conversationId: string }) => r.conversationId)).toEqual([
      ids[2],
      ids[1],
    ]);
    const third = (await c.get(`/conversations?limit=2&cursor=${encodeURIComponent(second.nextCursor)}`))
      .body;
    expect(third).toMatchObject({ success: true, hasMore: false });
    expect(third.conversations.map((r: { conversationId: string }) => r.conversationId)).toEqual([ids[0]]);
    expect(third.nextCursor).toBeUndefined();
    expect((await c.get("/conversations?limit=5")).body.hasMore).toBe(false);
    expect((await c.get("/conversations?limit=0")).status).toBe(400);
    expect((await c.get("/conversations?limit=abc")).status).toBe(400);
    const badCursor = await c.get("/conversations?cursor=not-a-cursor");
    expect(badCursor.status).toBe(400);
    expect(badCursor.body).toMatchObject({ success: false, error: { code: "invalid_cursor" } });
  });

  it("a cursor only pages through the caller's own conversations", async () => {
    let now = 1_000;
    h = await startHarness({ now: () => now++ });
    const c = h.client();
    for (let i = 0; i < 3; i++) await c.post("/conversations/create", { title: `mine ${i}` });
    const first = (await c.get("/conversations?limit=1")).body;
    await h.db.conversations.create({ userId: "someone-else", title: "theirs" });
    const rest = (await c.get(`/conversations?limit=10&cursor=${encodeURIComponent(first.nextCursor)}`)).body;
    expect(rest.conversations.map((r: { title: string }) => r.title)).toEqual(["mine 1", "mine 0"]);
  });

  it("rename replaces the title; an unknown id is 404", async () => {
    h = await startHarness();
    const c = h.client();
    const id = (await c.post("/conversations/create", { title: "old" })).body.conversationId;
    const r = await c.post("/conversations/rename", { conversationId: id, title: " new\nname " });
    expect(r.body).toEqual({ success: true, conversationId: id, title: "new name" });
    expect((await h.db.conversations.get(id))?.title).toBe("new name");
    const missing = await c.post("/conversations/rename", { conversationId: "nope", title: "x" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    const blank = await c.post("/conversations/rename", { conversationId: id, title: " \n " });
    expect(blank.status).toBe(400);
  });

  it("delete removes the index row and the conversation's messages, and nothing else", async () => {
    h = await startHarness();
    const c = h.client();
    const id = (await c.post("/conversations/create", { title: "bye" })).body.conversationId;
    const keep = (await c.post("/conversations/create", { title: "stay" })).body.conversationId;
    const memory = h.runs.memory;
    await memory.append({ userId: "shared", conversationId: id }, [{ role: "user", content: "secret" }]);
    await memory.append({ userId: "shared", conversationId: keep }, [{ role: "user", content: "kept" }]);
    const r = await c.post("/conversations/delete", { conversationId: id });
    expect(r.body).toEqual({ success: true, deleted: true });
    expect(await h.db.conversations.get(id)).toBeUndefined();
    expect(await memory.count({ userId: "shared", conversationId: id })).toBe(0);
    expect(await memory.count({ userId: "shared", conversationId: keep })).toBe(1);
    expect((await c.post("/conversations/delete", { conversationId: id })).status).toBe(404);
  });
});

describe("preference routes", () => {
  it("set upserts any JSON value, get returns them all, delete reports whether the key existed", async () => {
    h = await startHarness();
    const c = h.client();
    expect((await c.get("/preferences")).body).toEqual({ success: true, preferences: {} });
    expect((await c.post("/preferences/set", { key: "theme", value: "light" })).body).toEqual({
      success: true,
    });
    await c.post("/preferences/set", { key: "theme", value: "dark" });
    await c.post("/preferences/set", { key: "layout", value: { wide: true, n: [1, 2] } });
    await c.post("/preferences/set", { key: "none", value: null });
    expect((await c.get("/preferences")).body.preferences).toEqual({
      theme: "dark",
      layout: { wide: true, n: [1, 2] },
      none: null,
    });
    expect((await c.post("/preferences/delete", { key: "theme" })).body).toEqual({
      success: true,
      deleted: true,
    });
    expect((await c.post("/preferences/delete", { key: "theme" })).body).toEqual({
      success: true,
      deleted: false,
    });
    expect((await c.get("/preferences")).body.preferences).toEqual({
      layout: { wide: true, n: [1, 2] },
      none: null,
    });
  });

  it("refuses a missing value and a non-string key with 400 naming the field", async () => {
    h = await startHarness();
    const c = h.client();
    const missing = await c.post("/preferences/set", { key: "k" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/value: required/);
    const badKey = await c.post("/preferences/set", { key: 5, value: 1 });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.message).toMatch(/key: expected a string, got number/);
  });
});

describe("meta routes", () => {
  it("health answers success and status ok", async () => {
    h = await startHarness();
    expect((await h.client().get("/health")).body).toEqual({ success: true, status: "ok", store: "ok" });
  });

  it("info reports agent, model, demo flag, counts and capabilities; compact is false without a summary model", async () => {
    h = await startHarness();
    const r = await h.client().get("/info");
    expect(r.body).toEqual({
      success: true,
      agentName: "tester",
      modelName: expect.stringContaining("demo"),
      demoModel: true,
      counts: { memories: 0, tools: 2 },
      capabilities: {
        compact: false,
        steer: true,
        cancel: true,
        approvals: true,
        signIn: false,
        apiKey: false,
      },
    });
  });

  it("tools lists each tool with its approval flag and input schema", async () => {
    h = await startHarness();
    const tools = (await h.client().get("/tools")).body.tools;
    expect(tools.map((t: { name: string; needsApproval: boolean }) => [t.name, t.needsApproval])).toEqual([
      ["lookup", false],
      ["delete_file", true],
    ]);
    expect(tools[0].inputSchema).toMatchObject({ type: "object", properties: { word: { type: "string" } } });
  });

  it("answers an unknown route with a JSON 404", async () => {
    h = await startHarness();
    const r = await h.client().get("/nope");
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found");
  });
});
