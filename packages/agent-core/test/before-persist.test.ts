// `beforePersist` runs when a turn ends, before the memory's transaction opens (a gateway stops its
// streamed preview there: waiting on a platform call inside the store's transaction would hold it).
import { describe, expect, it } from "vitest";
import {
  defineAgent,
  InMemoryRunStore,
  type MemoryScope,
  type Message,
  RunManager,
  WindowMemory,
} from "../src/index.js";
import { transferAgent } from "./helpers.js";

const user = { userId: "alice", conversationId: "c1" };

/** Records when the transaction (`within`) opens and closes around the caller's writes. */
class TracingMemory extends WindowMemory {
  constructor(private readonly seen: string[]) {
    super();
  }
  override append(scope: MemoryScope, messages: Message[], within?: () => void | Promise<void>) {
    return super.append(scope, messages, async () => {
      this.seen.push("tx:open");
      await within?.();
      this.seen.push("tx:close");
    });
  }
}

describe("beforePersist", () => {
  it("is awaited before the turn's transaction opens, not when the turn suspends, and again before a continuation's", async () => {
    const seen: string[] = [];
    const runs = new RunManager({
      agent: transferAgent(),
      memory: new TracingMemory(seen),
      runStore: new InMemoryRunStore(),
    });
    const hooks = (label: string) => ({
      beforePersist: async () => {
        // Still waiting here must hold the transaction back.
        await new Promise((r) => setTimeout(r, 20));
        seen.push(`${label}:before`);
      },
      persistWith: () => void seen.push(`${label}:persist`),
    });
    const handle = runs.start({ input: "send 5", threadId: "t-bank", ...user, ...hooks("start") });
    expect((await handle.done).status).toBe("suspended");
    expect(seen).toEqual([]);
    const resumed = await runs.resume(
      "t-bank",
      { decision: "approve" },
      { userId: "alice" },
      hooks("resume"),
    );
    expect((await resumed.done).status).toBe("completed");
    expect(seen).toEqual(["resume:before", "tx:open", "resume:persist", "tx:close"]);
  });

  it("a beforePersist that throws does not lose the turn: it is saved with the caller's writes", async () => {
    const seen: string[] = [];
    const memory = new TracingMemory(seen);
    const runs = new RunManager({
      agent: defineAgent({ name: "a", model: { provider: "demo", script: [{ text: "Hi." }] } }),
      memory,
      runStore: new InMemoryRunStore(),
    });
    const handle = runs.start({
      input: "hello",
      ...user,
      beforePersist: () => {
        throw new Error("preview would not stop");
      },
      persistWith: () => void seen.push("persist"),
    });
    expect((await handle.done).status).toBe("completed");
    expect(seen).toEqual(["tx:open", "persist", "tx:close"]);
    expect((await memory.load(user)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
