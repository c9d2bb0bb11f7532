// steer() on a run that was just cancelled (still winding down, status "running") answers false:
// the text is not taken, so the caller can tell the user it was not delivered.
import { describe, expect, it } from "vitest";
import { defineAgent, RunManager, WindowMemory } from "../src/index.js";
import { firstContent } from "./helpers.js";

const user = { userId: "alice", conversationId: "c1" };

describe("steer after cancel", () => {
  it("answers false and the text reaches neither the turn nor memory", async () => {
    const memory = new WindowMemory();
    const runs = new RunManager({
      agent: defineAgent({
        name: "a",
        model: { provider: "demo", tokenDelayMs: 5, script: [{ text: "a long answer in many small words" }] },
      }),
      memory,
    });
    const handle = runs.start({ input: "start", ...user });
    await firstContent(handle);
    expect(runs.cancel(handle.threadId, { userId: "alice" })).toBe(true);
    expect(handle.status).toBe("running");
    expect(runs.steer(handle.threadId, "too late", { userId: "alice" })).toBe(false);
    const result = await handle.done;
    expect(result.status).toBe("cancelled");
    const stored = await memory.load(user);
    expect(JSON.stringify(stored)).not.toContain("too late");
  });
});
