// A turn that stops for approval saves the suspended run before it says so: when the
// middleware_stop chunk goes out (and when `done` resolves), the run store already holds the
// pending call, even when the store is slow; a save that fails fails the turn instead.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  defineAgent,
  defineTool,
  InMemoryRunStore,
  RunManager,
  type SuspendedRun,
  WindowMemory,
} from "../src/index.js";

const user = { userId: "alice", conversationId: "c1" };
const transfer = defineTool({
  name: "transfer",
  description: "Move money",
  input: v.object({ amount: v.number() }),
  needsApproval: true,
  execute: ({ amount }) => ({ moved: amount }),
});
const agent = defineAgent({
  name: "bank",
  tools: [transfer],
  model: { provider: "demo", script: [{ toolCalls: [{ name: "transfer", arguments: { amount: 5 } }] }] },
});

/** A run store whose writes land a while after they are asked for (a database round trip). */
class SlowRunStore extends InMemoryRunStore {
  override async save(run: SuspendedRun, within?: () => void | Promise<void>): Promise<void> {
    await new Promise((r) => setTimeout(r, 30));
    await super.save(run, within);
  }
}

class FailingRunStore extends InMemoryRunStore {
  override async save(): Promise<void> {
    await new Promise((r) => setTimeout(r, 5));
    throw new Error("disk full");
  }
}

describe("suspending a turn", () => {
  it("has the pending call saved when the middleware_stop chunk goes out and when done resolves", async () => {
    const runStore = new SlowRunStore();
    const runs = new RunManager({ agent, memory: new WindowMemory(), runStore });
    const handle = runs.start({ input: "send 5", threadId: "t-slow", ...user });
    let savedAtStop: SuspendedRun | undefined;
    for await (const event of handle.events()) {
      if (event.chunk.kind === "middleware_stop") savedAtStop = await runStore.get("t-slow");
    }
    expect(savedAtStop?.pendingCall).toMatchObject({ name: "transfer" });
    expect((await handle.done).status).toBe("suspended");
    expect(await runStore.get("t-slow")).toBeDefined();
  });

  it("fails the turn, with no middleware_stop chunk, when the suspended run cannot be saved", async () => {
    const runs = new RunManager({ agent, memory: new WindowMemory(), runStore: new FailingRunStore() });
    const handle = runs.start({ input: "send 5", threadId: "t-fail", ...user });
    const kinds: unknown[] = [];
    for await (const event of handle.events()) kinds.push(event.chunk.kind);
    const result = await handle.done;
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("disk full");
    expect(kinds).not.toContain("middleware_stop");
  });
});
