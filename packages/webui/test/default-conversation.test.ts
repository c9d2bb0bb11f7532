import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, type Harness, startTwoUsers } from "./harness.js";

// Conversation ids are unique store-wide, so each signed-in user gets a default conversation of
// their own; nobody can squat on another user's.
let h: Harness;
let alice: Client;
let bob: Client;

beforeAll(async () => {
  ({ h, alice, bob } = await startTwoUsers());
});
afterAll(async () => {
  await h?.close();
});

describe("the default conversation of a signed-in user", () => {
  it("is separate per user when no conversationId is sent, so a second user is not refused", async () => {
    const a = await alice.post("/invoke", { input: "alice default words" });
    const b = await bob.post("/invoke", { input: "bob default words" });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.conversationId).toBe("default:alice");
    expect(b.body.conversationId).toBe("default:bob");
    const bobHistory = (await bob.get("/history")).body.messages as { content: string }[];
    expect(bobHistory.map((m) => m.content).join(" ")).not.toContain("alice");
  });

  it("refuses another user's default conversation id with 400 instead of letting it be claimed", async () => {
    const squat = await alice.post("/invoke", { input: "mine now", conversationId: "default:carol" });
    expect(squat.status).toBe(400);
    const read = await alice.get("/history?conversationId=default:bob");
    expect(read.status).toBe(400);
  });
});
