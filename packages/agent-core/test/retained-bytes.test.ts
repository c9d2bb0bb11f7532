// Finished runs stay replayable for a minute (10,000 at most): with large messages that alone could
// hold gigabytes, so the runs kept are bounded by bytes too (#38 item 1).
import { describe, expect, it } from "vitest";
import { defineAgent, RunManager } from "../src/index.js";

describe("finished runs kept for replay", () => {
  it("are forgotten oldest first once their messages pass maxRetainedBytes", async () => {
    const agent = defineAgent({ name: "a", model: { provider: "demo" }, memory: { type: "window" } });
    const runs = new RunManager({ agent, maxRetainedBytes: 250_000 });
    const threads: string[] = [];
    for (let i = 0; i < 4; i++) {
      const handle = runs.start({
        input: `${i} ${"x".repeat(100_000)}`,
        userId: "u",
        conversationId: `c${i}`,
      });
      threads.push(handle.threadId);
      await handle.done;
    }
    // Each run keeps about 100 KB (its user message, and a short reply): two fit.
    expect(threads.map((t) => runs.get(t) !== undefined)).toEqual([false, false, true, true]);
  });
});
