// A turn's messages are appended with `within` only when something must land with them (the
// caller's `persistWith`, a continued run's checkpoint to delete): without it a durable memory
// writes them as one statement, with no transaction around it.
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

/** Notes, per append, whether the turn handed it a `within`. */
class WithinMemory extends WindowMemory {
  readonly withins: boolean[] = [];
  override append(scope: MemoryScope, messages: Message[], within?: () => void | Promise<void>) {
    this.withins.push(within !== undefined);
    return super.append(scope, messages, within);
  }
}

const hello = defineAgent({ name: "a", model: { provider: "demo", script: [{ text: "Hi." }] } });

describe("a turn's append and within", () => {
  it("a turn the caller adds nothing to is appended without within, its messages stored", async () => {
    const memory = new WithinMemory();
    const runs = new RunManager({ agent: hello, memory, runStore: new InMemoryRunStore() });
    expect((await runs.start({ input: "hello", ...user }).done).status).toBe("completed");
    expect(memory.withins).toEqual([false]);
    expect((await memory.load(user)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a turn with persistWith is appended with a within that runs it", async () => {
    const memory = new WithinMemory();
    const runs = new RunManager({ agent: hello, memory, runStore: new InMemoryRunStore() });
    const persisted: string[] = [];
    const handle = runs.start({ input: "hello", ...user, persistWith: (r) => void persisted.push(r.status) });
    expect((await handle.done).status).toBe("completed");
    expect(memory.withins).toEqual([true]);
    expect(persisted).toEqual(["completed"]);
  });

  it("a continued run is appended with a within that deletes its checkpoint", async () => {
    const memory = new WithinMemory();
    const runStore = new InMemoryRunStore();
    const runs = new RunManager({ agent: transferAgent(), memory, runStore });
    expect((await runs.start({ input: "send 5", threadId: "t-bank", ...user }).done).status).toBe(
      "suspended",
    );
    expect(await runStore.get("t-bank")).toBeDefined();
    const resumed = await runs.resume("t-bank", { decision: "approve" }, { userId: "alice" });
    expect((await resumed.done).status).toBe("completed");
    expect(memory.withins).toEqual([true]);
    expect(await runStore.get("t-bank")).toBeUndefined();
  });
});
