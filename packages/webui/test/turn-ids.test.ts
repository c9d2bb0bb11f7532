import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, postStream, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const BAD_IDS = ["", "   ", "a\u0000b", "tab\there", "line\nbreak", "del\u007f", "x".repeat(201)];

describe("one conversationId rule for every route", () => {
  it("refuses on /invoke, /stream and /batch the ids that /history and /clear refuse, and stores nothing", async () => {
    const c = h.client();
    for (const conversationId of BAD_IDS) {
      const label = JSON.stringify(conversationId);
      expect(
        (await c.get(`/history?conversationId=${encodeURIComponent(conversationId)}`)).status,
        label,
      ).toBe(400);
      expect((await c.post("/clear", { conversationId })).status, label).toBe(400);
      const invoke = await c.post("/invoke", { input: "hi", conversationId });
      expect(invoke.status, label).toBe(400);
      expect(invoke.body.error.message, label).toContain("conversationId");
      expect((await c.post("/batch", { inputs: ["hi"], conversationId })).status, label).toBe(400);
      const stream = await postStream(h.base, "/stream", { input: "hi", conversationId });
      expect(stream.status, label).toBe(400);
      await stream.text();
    }
    expect((await c.get("/conversations")).body.conversations).toEqual([]);
  });
});
