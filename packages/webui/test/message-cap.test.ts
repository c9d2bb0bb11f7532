// #38: the chat page's turn routes share the agent route's message cap: an input over 200,000
// characters is a 413 the page can show, not a failure, and nothing of it is stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, type Harness, startTwoUsers } from "./harness.js";

let h: Harness;
let alice: Client;

beforeAll(async () => {
  ({ h, alice } = await startTwoUsers());
});
afterAll(async () => {
  await h?.close();
});

describe("a message over the page's cap", () => {
  it("is refused with 413 message_too_large on /invoke and /stream, and the history stays empty", async () => {
    const over = "x".repeat(200_001);
    for (const path of ["/invoke", "/stream"]) {
      const res = await alice.post(path, { input: over });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatchObject({ code: "message_too_large" });
    }
    const history = (await alice.get("/history")).body.messages as unknown[];
    expect(history).toEqual([]);
  });
});
