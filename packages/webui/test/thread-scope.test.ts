import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVAL_TOOL, type Client, type Harness, postStream, readSse, startTwoUsers } from "./harness.js";

let h: Harness;
let alice: Client;
let bob: Client;
beforeAll(async () => {
  ({ h, alice, bob } = await startTwoUsers());
});
afterAll(async () => {
  await h.close();
});

describe("thread ids are scoped to their owner", () => {
  it("another user reusing an ended thread id gets a run of his own; the owner can still replay hers", async () => {
    const first = await alice.post("/invoke", {
      input: "alice words",
      threadId: "shared-name",
      conversationId: "a1",
    });
    expect(first.status).toBe(200);
    const reuse = await bob.post("/invoke", {
      input: "bob words",
      threadId: "shared-name",
      conversationId: "b1",
    });
    expect(reuse.status).toBe(200);
    expect(reuse.headers.get("x-thread-id")).toBe("shared-name");
    expect(reuse.body.threadId).toBe("shared-name");
    expect(reuse.body.output).not.toContain("alice");
    const replay = await postStream(
      h.base,
      "/stream",
      { threadId: "shared-name" },
      { cookie: alice.cookie ?? "", "last-event-id": "0" },
    );
    expect(replay.status).toBe(200);
    const events = await readSse(replay);
    expect(events[0]).toMatchObject({ event: "thread", data: "shared-name" });
    const text = events
      .filter((e) => e.event === "chunk")
      .map((e) => JSON.parse(e.data).choices[0].delta.content ?? "");
    expect(text.join("")).toContain("alice words");
    expect(text.join("")).not.toContain("bob words");
  });

  it("answers a stranger's pending thread id exactly like an unknown one, on every route", async () => {
    const suspended = await alice.post("/invoke", {
      input: `use ${APPROVAL_TOOL} on notes.txt`,
      conversationId: "a-pending",
      threadId: "alice-pending",
    });
    expect(suspended.body.status).toBe("suspended");
    const strip = (r: { status: number; body: unknown }) =>
      JSON.stringify({ status: r.status, body: r.body })
        .replaceAll("alice-pending", "ID")
        .replaceAll("no-such-thread", "ID");
    for (const [method, path, body] of [
      ["post", "/resume", { decision: "approve" }],
      ["post", "/resume", { decision: "reject" }],
      ["post", "/cancel", {}],
      ["post", "/steer", { input: "psst" }],
      ["get", "/pending", {}],
    ] as const) {
      const ask = (threadId: string) =>
        method === "get" ? bob.get(`${path}?threadId=${threadId}`) : bob.post(path, { ...body, threadId });
      expect(strip(await ask("alice-pending")), path).toBe(strip(await ask("no-such-thread")));
    }
    // Starting a run under that id is not refused either (it is Bob's own id).
    const own = await bob.post("/invoke", {
      input: "hello",
      threadId: "alice-pending",
      conversationId: "b2",
    });
    expect(own.status).toBe(200);
    expect((await alice.get("/pending?threadId=alice-pending")).body.pending).not.toBeNull();
  });

  it("keeps the spec's answer for a non-owner's resume: 403", async () => {
    const r = await bob.post("/resume", { threadId: "alice-pending", decision: "approve" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("forbidden");
  });
});
