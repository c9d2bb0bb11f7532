import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVAL_TOOL, type Client, type Harness, postStream, readSse, startTwoUsers } from "./harness.js";

// User A owns a conversation with history, a second conversation with a suspended approval, a
// preference and a live thread; user B walks every user-scoped route against A's ids.
let h: Harness;
let alice: Client;
let bob: Client;
let pendingThread: string;
let aliceState: () => Promise<unknown>;

beforeAll(async () => {
  ({ h, alice, bob } = await startTwoUsers());
  await alice.post("/invoke", {
    input: "alice private words",
    conversationId: "a-conv",
    threadId: "a-thread",
  });
  await alice.post("/preferences/set", { key: "theme", value: "alice-dark" });
  const suspended = await alice.post("/invoke", {
    input: `use ${APPROVAL_TOOL} on secrets.txt`,
    conversationId: "a-pending",
  });
  expect(suspended.body.status).toBe("suspended");
  pendingThread = suspended.body.threadId;
  // Everything A can observe about her own state, to compare before and after B's attempts.
  aliceState = async () => ({
    history: (await alice.get("/history?conversationId=a-conv")).body.messages,
    pendingHistory: (await alice.get("/history?conversationId=a-pending")).body.messages,
    conversations: (await alice.get("/conversations")).body.conversations,
    preferences: (await alice.get("/preferences")).body.preferences,
    pending: (await alice.get(`/pending?threadId=${pendingThread}`)).body.pending,
  });
});
afterAll(async () => {
  await h.close();
});

describe("two users: B can neither read, change nor resume anything of A's", () => {
  it("walks every user-scoped route as B against A's ids and leaves A's state exactly as it was", async () => {
    const before = await aliceState();
    expect((before as { history: unknown[] }).history.length).toBeGreaterThan(0);

    // Reads reveal nothing.
    expect((await bob.get("/history?conversationId=a-conv")).body.messages).toEqual([]);
    expect((await bob.get("/conversations")).body.conversations).toEqual([]);
    expect((await bob.get("/preferences")).body.preferences).toEqual({});
    expect((await bob.get(`/pending?threadId=${pendingThread}`)).body).toEqual({
      success: true,
      pending: null,
    });
    expect((await bob.get("/info?conversationId=a-conv")).body.counts.memories).toBe(0);

    // Turns on A's conversations are refused, the owner never changes.
    for (const conversationId of ["a-conv", "a-pending"]) {
      expect((await bob.post("/invoke", { input: "hijack", conversationId })).status).toBe(403);
      expect((await bob.post("/batch", { inputs: ["hijack"], conversationId })).status).toBe(403);
      const s = await postStream(
        h.base,
        "/stream",
        { input: "hijack", conversationId },
        { cookie: bob.cookie ?? "" },
      );
      expect(s.status).toBe(403);
      await s.text();
    }
    // A's thread: a stream reconnect reveals nothing, a new run on the pending thread id is refused.
    const replay = await postStream(
      h.base,
      "/stream",
      { threadId: "a-thread" },
      { cookie: bob.cookie ?? "", "last-event-id": "0" },
    );
    expect(replay.status).toBe(404);
    expect(await replay.text()).not.toContain("alice");
    // The same id names a run of Bob's own: nothing of A's is touched or revealed.
    const onPending = await bob.post("/invoke", {
      input: "x",
      threadId: pendingThread,
      conversationId: "bob-own",
    });
    expect(onPending.status).toBe(200);
    expect(JSON.stringify(onPending.body)).not.toContain("alice");

    // Controls on A's runs do nothing.
    expect((await bob.post("/cancel", { threadId: pendingThread })).body).toEqual({
      success: true,
      cancelled: false,
    });
    expect((await bob.post("/cancel", { threadId: "a-thread" })).body).toEqual({
      success: true,
      cancelled: false,
    });
    expect((await bob.post("/steer", { threadId: "a-thread", input: "psst" })).body).toEqual({
      success: true,
      steered: false,
    });
    for (const decision of ["approve", "reject"]) {
      const r = await bob.post("/resume", { threadId: pendingThread, decision });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("forbidden");
    }
    const edit = await bob.post("/resume", {
      threadId: pendingThread,
      decision: "edit",
      editedData: { path: "/etc/passwd" },
    });
    expect(edit.status).toBe(403);

    // Writes to A's conversations and preferences are refused or land in B's own scope.
    expect((await bob.post("/clear", { conversationId: "a-conv" })).status).toBe(200);
    expect((await bob.post("/compact", { conversationId: "a-conv", keepRecent: 0 })).body).toMatchObject({
      compacted: false,
      before: 0,
    });
    expect(
      (await bob.post("/conversations/rename", { conversationId: "a-conv", title: "pwned" })).status,
    ).toBe(404);
    expect((await bob.post("/conversations/delete", { conversationId: "a-conv" })).status).toBe(404);
    expect((await bob.post("/conversations/delete", { conversationId: "a-pending" })).status).toBe(404);
    expect((await bob.post("/preferences/delete", { key: "theme" })).body).toEqual({
      success: true,
      deleted: false,
    });
    await bob.post("/preferences/set", { key: "theme", value: "bob-light", userId: "alice" });

    expect(await aliceState()).toEqual(before);
    expect((await h.db.conversations.get("a-conv"))?.userId).toBe("alice");
    expect((await h.db.conversations.get("a-conv"))?.title).toBe("alice private words");
    expect((await bob.get("/preferences")).body.preferences).toEqual({ theme: "bob-light" });
  });

  it("A can still resume her own pending run after B's attempts", async () => {
    const res = await postStream(
      h.base,
      "/resume",
      { threadId: pendingThread, decision: "approve" },
      { cookie: alice.cookie ?? "" },
    );
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.at(-1)?.event).toBe("done");
    expect((await alice.get(`/pending?threadId=${pendingThread}`)).body.pending).toBeNull();
  });
});
