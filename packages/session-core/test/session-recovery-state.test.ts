// The state a thread is given back at boot (recovery.ts): a continued turn and a turn waiting for
// a decision start with nothing steered and nothing committed, and an approval room knows the
// request it was asked before the crash.
import { RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import { crash, diedWhileApprovedToolRan } from "./recovery-crashes.js";
import {
  Gates,
  type Rig,
  type RigOptions,
  tempDir,
  testAgent,
  until,
  useRig,
  withApprovalRoom,
} from "./session-harness.js";

const T = "T";
const openRig = useRig();

/** The first write of a turn's reply (inside its end's transaction) is refused, as a full disk would. */
function refuseFirstEnd(db: ChatDb): void {
  const enqueue = db.outbox.enqueue.bind(db.outbox);
  let refuse = true;
  db.outbox.enqueue = (items) => {
    // Reply pieces are keyed by their inbox record ("mock:in7:0"); a decided notice is not.
    if (refuse && db.inTransaction() && items.some((i) => /:in\d+:/.test(i.idemKey))) {
      refuse = false;
      return Promise.reject(new Error("the reply row was refused"));
    }
    return enqueue(items);
  };
}

/**
 * Boots over `dir` with the first write of a turn's end refused, as a full disk would; `toEnd`
 * brings the recovered turn to its end. The turn still ends, with the failure reply, and leaves
 * nothing unfinished.
 */
async function bootsAndEndsDespiteRefusedEnd(
  dir: string,
  options: RigOptions,
  toEnd: (b: Rig) => Promise<void> = async () => {},
): Promise<void> {
  const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  refuseFirstEnd(db);
  try {
    const b = await openRig({ dir, store: db, ...options });
    await toEnd(b);
    await until(() => b.gateway.textsTo(T).length === 1, "the failure reply");
    expect(b.gateway.textsTo(T)[0]).toMatch(/^Sorry, I could not answer/);
    await b.session.idle();
    expect(await db.inbox.unfinished()).toEqual([]);
    await b.close();
  } finally {
    db.close();
  }
}

/** A first process whose turn waited for a decision when it died; resolves with the request id. */
async function diedWhileWaiting(dir: string): Promise<string> {
  const a = await openRig({ dir });
  await a.gateway.inject({ thread: T, text: "use delete_file x.txt" });
  await until(() => a.gateway.decisionRequests.length === 1, "the approval request");
  const requestId = a.gateway.decisionRequests[0]?.requestId ?? "";
  await crash(a);
  return requestId;
}

/**
 * A first process whose runs suspended and which died before any request was saved: a turn on the
 * thread (its record running) and, with `elsewhere`, a run started outside any gateway.
 */
async function diedBeforeRequestsSaved(dir: string, elsewhere = false): Promise<void> {
  const before = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  const origin = { gateway: "mock", thread: T, author: { id: "user-1" } };
  const text = "use delete_file a.txt";
  const rec = await before.inbox.accept({ gateway: "mock", dedupKey: "m1", thread: T, text, origin });
  if (!rec.accepted) throw new Error("not accepted");
  await before.inbox.markRunning(rec.id);
  const runs = new RunManager({
    agent: testAgent(new Gates(), [], undefined, "ops"),
    memory: before.createMemory({ canSummarize: false }),
    runStore: before.runStore,
  });
  const turn = runs.start({
    input: text,
    threadId: `gw:mock:${T}`,
    userId: "mock",
    conversationId: T,
    origin,
  });
  expect((await turn.done).status).toBe("suspended");
  if (elsewhere) {
    const run = runs.start({ input: "use delete_file b.txt", userId: "alice", conversationId: "c1" });
    expect((await run.done).status).toBe("suspended");
  }
  before.close();
}

describe("a turn continued at boot", () => {
  it("has nothing steered yet: a message steered into it counts once and is finished with the turn", async () => {
    const dir = tempDir();
    await diedWhileApprovedToolRan(openRig, dir, T, { gatewaySession: { policy: "steer" } });
    // Model call 2 of the turn (its first after the boot) waits at a gate, so the turn is running
    // when the message comes.
    const b = await openRig({
      dir,
      gatewaySession: { policy: "steer" },
      script: [
        { toolCalls: [{ name: "slow_delete", arguments: { note: "x.txt" } }] },
        { toolCalls: [{ name: "wait_gate", arguments: { note: "hold" } }] },
        { text: "continued" },
      ],
    });
    await until(() => b.gates.calls.length === 1, "the continued turn at its gate");
    expect(b.session.snapshot("mock", T)).toMatchObject({ phase: "running", steered: 0 });
    await b.gateway.inject({ thread: T, text: "and this too", id: "after-boot-1" });
    await until(() => b.session.snapshot("mock", T).steered > 0, "the message steered in");
    expect(b.session.snapshot("mock", T).steered).toBe(1);
    b.gates.openAll();
    await b.session.idle();
    expect(b.runs.starts).toEqual([]);
    expect(b.gateway.textsTo(T)).toHaveLength(1);
    expect(await b.db.inbox.unfinished()).toEqual([]);
  });

  it("whose end cannot be written still ends, with the failure reply", async () => {
    const dir = tempDir();
    await diedWhileApprovedToolRan(openRig, dir, T);
    const gates = new Gates();
    gates.openAll();
    await bootsAndEndsDespiteRefusedEnd(dir, { gates });
  });
});

describe("a turn waiting for a decision at boot", () => {
  it("is suspended on its request, with nothing steered", async () => {
    const dir = tempDir();
    const requestId = await diedWhileWaiting(dir);
    const b = await openRig({ dir });
    await until(() => b.session.snapshot("mock", T).pendingRequestId === requestId, "the recovered request");
    expect(b.session.snapshot("mock", T)).toMatchObject({ running: true, phase: "suspended", steered: 0 });
  });

  it("approved, whose end cannot be written, still ends with the failure reply", async () => {
    const dir = tempDir();
    const requestId = await diedWhileWaiting(dir);
    await bootsAndEndsDespiteRefusedEnd(dir, {}, async (b) => {
      await until(
        () => b.session.snapshot("mock", T).pendingRequestId === requestId,
        "the recovered request",
      );
      expect(await b.gateway.decide(requestId, "approve")).toMatchObject({ ok: true });
    });
  });
});

describe("an approval room at boot", () => {
  it("takes a typed reply as the decision on the request it was asked before the crash", async () => {
    const dir = tempDir();
    const first = withApprovalRoom(dir);
    const opsA = first.ops;
    const a = await openRig(first.options);
    // A run from elsewhere asks in the room; the process dies before anyone answers.
    const run = a.runs.start({ input: "use delete_file one.txt", userId: "alice", conversationId: "c1" });
    expect((await run.done).status).toBe("suspended");
    await until(() => opsA.textsTo("ops-room").length === 1, "the request asked in the room");
    await crash(a);

    const second = withApprovalRoom(dir);
    const opsB = second.ops;
    const b = await openRig(second.options);
    await until(() => opsB.textsTo("ops-room").length === 1, "the request asked again");
    await opsB.inject({ thread: "ops-room", text: "yes" });
    await until(() => b.executed.length === 1, "the approved tool call");
    await b.session.idle();
    expect(b.executed).toEqual(["use delete_file one.txt"]);
    // The typed reply was the decision, not a message: no turn ran in the room.
    expect(b.runs.starts).toEqual([]);
  });
});

describe("two runs waiting on requests in one approval room at boot", () => {
  it("are asked again with their own requests: none is asked anew because the room's newest request is the other's", async () => {
    const dir = tempDir();
    const first = withApprovalRoom(dir);
    const a = await openRig(first.options);
    for (const conversationId of ["c1", "c2"]) {
      const run = a.runs.start({
        input: `use delete_file ${conversationId}.txt`,
        userId: "alice",
        conversationId,
      });
      expect((await run.done).status).toBe("suspended");
    }
    await until(() => first.ops.textsTo("ops-room").length === 2, "both requests asked in the room");
    const before = (await a.db.interactions.listOpen()).map((i) => i.requestId).sort();
    await crash(a);

    const second = withApprovalRoom(dir);
    const b = await openRig(second.options);
    await until(() => second.ops.textsTo("ops-room").length === 2, "both requests asked again");
    await b.session.idle();
    expect((await b.db.interactions.listOpen()).map((i) => i.requestId).sort()).toEqual(before);
    expect(second.ops.textsTo("ops-room")).toHaveLength(2);
  });
});

describe("a turn that suspended before its request was saved", () => {
  it("is not asked at boot when it is decided elsewhere while recovery reads it", async () => {
    const dir = tempDir();
    await diedBeforeRequestsSaved(dir);

    const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
    // Between reading the run (it is to be asked) and asking for it, another instance decides it:
    // its waiting state is gone when recovery asks.
    const listOpen = db.interactions.listOpen.bind(db.interactions);
    db.interactions.listOpen = async () => {
      db.interactions.listOpen = listOpen;
      await db.runStore.delete(`gw:mock:${T}`);
      return listOpen();
    };
    try {
      const b = await openRig({ dir, store: db });
      await b.session.idle();
      expect(b.gateway.decisionRequests).toEqual([]);
      expect(await db.interactions.listOpen()).toEqual([]);
      await b.close();
    } finally {
      db.close();
    }
  });
});

describe("runs that suspended before their requests were saved", () => {
  it("are each asked once at boot: the turn in its thread, the run from elsewhere in the approval room", async () => {
    const dir = tempDir();
    await diedBeforeRequestsSaved(dir, true);
    const { ops, options } = withApprovalRoom(dir);
    const b = await openRig(options);
    await until(() => b.gateway.decisionRequests.length > 0, "the turn's request");
    await until(() => ops.textsTo("ops-room").length > 0, "the other run's request in the room");
    await b.session.idle();
    expect(b.gateway.decisionRequests.map((r) => r.toolName)).toEqual(["delete_file"]);
    expect(ops.textsTo("ops-room")).toHaveLength(1);
    expect(ops.textsTo("ops-room")[0]).toContain("b.txt");
  });
});
