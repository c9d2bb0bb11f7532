// ContinueOptions.startIn: resume and continueInterrupted hand the caller the saved run they read
// (once, inside the manager's own guard against a second continuation) and start the continued turn
// inside the caller's wrapper, so a caller that needs the run (the server's spend meter: whose run
// it is) no longer reads it a second time. The manager's checks stand: not found, not pending, owner.
import { AsyncLocalStorage } from "node:async_hooks";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  AgentsvcError,
  defineAgent,
  defineTool,
  InMemoryRunStore,
  RunManager,
  type SuspendedRun,
} from "../src/index.js";

const user = { userId: "alice", conversationId: "c1" };

class CountingRunStore extends InMemoryRunStore {
  reads = 0;
  override get(threadId: string) {
    this.reads++;
    return super.get(threadId);
  }
}

/** Whose turn the tool ran in: the context startIn set up around the continued turn. */
const context = new AsyncLocalStorage<string>();

function bank() {
  const ranIn: (string | undefined)[] = [];
  const transfer = defineTool({
    name: "transfer",
    description: "Move money",
    input: v.object({ amount: v.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      ranIn.push(context.getStore());
      return { moved: amount };
    },
  });
  const agent = defineAgent({
    name: "bank",
    tools: [transfer],
    model: {
      provider: "demo",
      script: [
        { text: "Let me do that.", toolCalls: [{ name: "transfer", arguments: { amount: 5 } }] },
        { text: "Finished." },
      ],
    },
  });
  return { agent, ranIn };
}

async function suspended() {
  const { agent, ranIn } = bank();
  const runStore = new CountingRunStore();
  const runs = new RunManager({ agent, runStore });
  expect((await runs.start({ input: "send 5", threadId: "t-bank", ...user }).done).status).toBe("suspended");
  runStore.reads = 0;
  return { agent, ranIn, runStore, runs };
}

/** A startIn that notes the runs it was handed and runs the turn in their owner's context. */
function startIn() {
  const handed: SuspendedRun[] = [];
  const wrap = <T>(saved: SuspendedRun, start: () => T): T => {
    handed.push(saved);
    return context.run(saved.options.userId, start);
  };
  return { handed, wrap };
}

async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (err) {
    return err instanceof AgentsvcError ? err.code : String(err);
  }
  return undefined;
}

describe("ContinueOptions.startIn", () => {
  it("resume reads the saved run once, hands it over, and runs the continued turn inside the wrapper", async () => {
    const { runs, runStore, ranIn } = await suspended();
    const { handed, wrap } = startIn();
    const handle = await runs.resume(
      "t-bank",
      { decision: "approve" },
      { userId: "alice" },
      { startIn: wrap },
    );
    expect((await handle.done).status).toBe("completed");
    expect(runStore.reads).toBe(1);
    expect(handed.map((s) => [s.options.threadId, s.pendingCall.name])).toEqual([["t-bank", "transfer"]]);
    expect(ranIn).toEqual(["alice"]);
  });

  it("continueInterrupted reads the saved run once and runs the decided call inside the wrapper", async () => {
    const { agent, runStore, ranIn } = await suspended();
    const saved = (await runStore.get("t-bank")) as SuspendedRun;
    await runStore.save({
      ...saved,
      continuation: { phase: "decided", decision: { decision: "approve", decidedBy: "alice" } },
    });
    // A restart: a new manager over the same store.
    const after = new RunManager({ agent, runStore });
    runStore.reads = 0;
    const { handed, wrap } = startIn();
    const handle = await after.continueInterrupted("t-bank", { startIn: wrap });
    expect((await handle.done).status).toBe("completed");
    expect(runStore.reads).toBe(1);
    expect(ranIn).toEqual(["alice"]);
    expect(handed.map((s) => s.continuation?.phase)).toEqual(["decided"]);
  });

  it("the checks stand: another user's decision is forbidden, a thread with nothing pending not found; the wrapper is never called", async () => {
    const { runs } = await suspended();
    const { handed, wrap } = startIn();
    expect(
      await refusal(runs.resume("t-bank", { decision: "approve" }, { userId: "mallory" }, { startIn: wrap })),
    ).toBe("forbidden");
    expect(
      await refusal(runs.resume("t-none", { decision: "approve" }, { userId: "alice" }, { startIn: wrap })),
    ).toBe("not_found");
    expect(await refusal(runs.continueInterrupted("t-bank", { startIn: wrap }))).toBe("not_found");
    expect(handed).toEqual([]);
  });
});
