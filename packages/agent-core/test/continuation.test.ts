// A continued run (after an approval) is checkpointed in the RunStore: these tests stop a
// continuation at each checkpoint by handing its saved row to a new RunManager, as a restart would.
// (The process-level SIGKILL test over the http gateway is apps/server/test/crash.test.ts.)
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  defineAgent,
  defineTool,
  INTERRUPTED_RESULT,
  InMemoryRunStore,
  RunManager,
  type SuspendedRun,
  WindowMemory,
} from "../src/index.js";

const user = { userId: "alice", conversationId: "c1" };

function bank() {
  const moves: number[] = [];
  const transfer = defineTool({
    name: "transfer",
    description: "Move money",
    input: v.object({ amount: v.number() }),
    needsApproval: true,
    execute: ({ amount }) => {
      moves.push(amount);
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
  return { agent, moves };
}

async function suspended() {
  const { agent, moves } = bank();
  const memory = new WindowMemory();
  const runStore = new InMemoryRunStore();
  const runs = new RunManager({ agent, memory, runStore });
  const handle = runs.start({ input: "send 5", threadId: "t-bank", ...user });
  expect((await handle.done).status).toBe("suspended");
  return { agent, moves, memory, runStore, runs };
}

describe("continuation checkpoints", () => {
  it("records the decision with the caller's writes before the tool runs, and ends the checkpoint with the turn", async () => {
    const { runs, runStore, memory, moves } = await suspended();
    const seen: string[] = [];
    const handle = await runs.resume(
      "t-bank",
      { decision: "approve" },
      { userId: "alice" },
      {
        record: () => void seen.push(`record:${moves.length}`),
        persistWith: (r) => void seen.push(`persist:${r.status}`),
      },
    );
    expect((await handle.done).status).toBe("completed");
    expect(seen).toEqual(["record:0", "persist:completed"]);
    expect(moves).toEqual([5]);
    expect(await runStore.get("t-bank")).toBeUndefined();
    expect((await memory.load(user)).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("a second decision on a recorded one finds nothing pending (404), so it cannot run the tool twice", async () => {
    const { runs, runStore } = await suspended();
    const saved = (await runStore.get("t-bank")) as SuspendedRun;
    await runStore.save({
      ...saved,
      continuation: { phase: "decided", decision: { decision: "approve", decidedBy: "alice" } },
    });
    await expect(runs.resume("t-bank", { decision: "approve" }, { userId: "alice" })).rejects.toMatchObject({
      status: 404,
    });
    expect(await runs.pending("t-bank", { userId: "alice" })).toBeUndefined();
  });

  it("after a restart in phase decided the approved tool runs once and the whole turn is saved", async () => {
    const { agent, moves, runStore, memory } = await suspended();
    const saved = (await runStore.get("t-bank")) as SuspendedRun;
    await runStore.save({
      ...saved,
      continuation: { phase: "decided", decision: { decision: "approve", decidedBy: "alice" } },
    });
    const restarted = new RunManager({ agent, memory, runStore });
    await restarted.ready();
    expect((await restarted.interrupted()).map((r) => r.options.threadId)).toEqual(["t-bank"]);
    // Of one thread: the same run, or none for another thread.
    expect((await restarted.interrupted("t-bank")).map((r) => r.options.threadId)).toEqual(["t-bank"]);
    expect(await restarted.interrupted("t-other")).toEqual([]);
    expect(() => restarted.start({ input: "x", threadId: "t-bank", ...user })).toThrow(
      expect.objectContaining({ code: "thread_busy" }),
    );
    const handle = await restarted.continueInterrupted("t-bank");
    expect((await handle.done).status).toBe("completed");
    expect(moves).toEqual([5]);
    const stored = await memory.load(user);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(stored[2]).toMatchObject({ result: { moved: 5 } });
    expect(await runStore.get("t-bank")).toBeUndefined();
  });

  it("after a restart in phase executing the tool is never run again: it gets an interrupted result and the turn completes", async () => {
    const { agent, moves, runStore, memory } = await suspended();
    const saved = (await runStore.get("t-bank")) as SuspendedRun;
    await runStore.save({
      ...saved,
      continuation: { phase: "executing", decision: { decision: "approve", decidedBy: "alice" } },
    });
    const restarted = new RunManager({ agent, memory, runStore });
    await restarted.ready();
    const handle = await restarted.continueInterrupted("t-bank");
    expect((await handle.done).status).toBe("completed");
    expect(moves).toEqual([]);
    const stored = await memory.load(user);
    expect(stored[2]).toMatchObject({ role: "tool", isError: true, result: INTERRUPTED_RESULT });
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("checkpoints executing before and continuing after the approved tool, with its result saved", async () => {
    const { runs, runStore, moves } = await suspended();
    const phases: string[] = [];
    const save = runStore.save.bind(runStore);
    runStore.save = async (run, within) => {
      phases.push(
        `${run.continuation?.phase}:${run.turnMessages.filter((m) => m.role === "tool").length}:${moves.length}`,
      );
      return save(run, within);
    };
    const handle = await runs.resume("t-bank", { decision: "approve" }, { userId: "alice" });
    await handle.done;
    expect(phases).toEqual(["decided:0:0", "executing:0:0", "continuing:1:1"]);
  });

  it("a turn whose commit fails keeps its checkpoint, so a restart continues it instead of losing it", async () => {
    const { runs, runStore } = await suspended();
    const handle = await runs.resume(
      "t-bank",
      { decision: "approve" },
      { userId: "alice" },
      {
        persistWith: () => {
          throw new Error("disk full");
        },
      },
    );
    const result = await handle.done;
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("persist_failed");
    expect((await runStore.get("t-bank"))?.continuation?.phase).toBe("continuing");
  });
});
