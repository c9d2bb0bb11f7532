// Ownership on its own (one instance of a memory cluster, over a real ChatDb file): when settling a
// thread lets it go, and what a sweep or a settle asks of the store and the locks. Each store
// round trip is one to PostgreSQL per thread and period in production: none is wasted.
import { ChatDb } from "@agentsvc/chat-store";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type Coordination, GatewayRegistry } from "../src/index.js";
import { Ownership } from "../src/ownership.js";
import type { SessionParts } from "../src/parts.js";
import { createMemoryCluster, createMockGateway } from "../src/testing/index.js";
import { gatewayThreadId, type ThreadState, Threads } from "../src/threads.js";
import { captureLogs } from "./helpers.js";
import { countingLocks, parked, removeDir, tempDir, until } from "./session-harness.js";

const T = "T";
const TID = gatewayThreadId("mock", T);
const opened: { db: ChatDb; dir: string }[] = [];

afterEach(() => {
  for (const { db, dir } of opened.splice(0)) {
    db.close();
    removeDir(dir);
  }
});

/** Instance "a" of a new cluster; `coordination` may change a's (e.g. slow down giving locks back). */
function owner(
  options: { adopt?: () => Promise<void>; coordination?: (inner: Coordination) => Coordination } = {},
) {
  const dir = tempDir();
  const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  opened.push({ db, dir });
  const cluster = createMemoryCluster();
  const inner = options.coordination?.(cluster.instance("a")) ?? cluster.instance("a");
  /** Locks asked for, and threads whose queued records were read. */
  const asked: string[] = [];
  const looked: string[] = [];
  const coordination = countingLocks(inner, asked);
  const queued = db.inbox.queued.bind(db.inbox);
  db.inbox.queued = (gateway, thread) => {
    looked.push(gatewayThreadId(gateway, thread));
    return queued(gateway, thread);
  };
  const registry = new GatewayRegistry();
  registry.register(createMockGateway({}));
  const threads = new Threads();
  const logs = captureLogs();
  /** Threads whose run was cancelled. */
  const cancelled: string[] = [];
  // Only the parts Ownership uses; a run manager that keeps nothing to release.
  const parts = {
    store: db,
    registry,
    threads,
    logger: pino({ level: "debug" }, logs.stream),
    runs: {
      release() {},
      cancel: (threadId: string) => {
        cancelled.push(threadId);
        return true;
      },
    },
    stopping: () => false,
  } as unknown as SessionParts;
  const taken: string[] = [];
  const own = new Ownership(parts, coordination, {
    adopt: options.adopt ?? (async () => {}),
    onMessage: async (_state, msg) => {
      taken.push(msg.text);
    },
  });
  const record = (thread: string, text: string, gateway = "mock") =>
    db.inbox.accept({ gateway, dedupKey: `${thread}:${text}`, thread, text, origin: { gateway, thread } });
  return { cluster, own, threads, asked, looked, taken, record, logs, cancelled };
}

/** The thread's state with a turn in `phase`. */
function turnOn(state: ThreadState, phase: "running" | "suspended"): ThreadState {
  state.active = {
    inboxId: 1,
    phase,
    origin: { gateway: "mock", thread: state.thread },
    steered: [],
    committed: false,
  };
  return state;
}

describe("settling a thread", () => {
  it("keeps a thread whose stored state is being adopted: its lock and its state stay, nothing is read", async () => {
    const adoption = parked();
    const o = owner({ adopt: () => adoption.reached() });
    const claim = o.own.claim("mock", T);
    await until(() => adoption.began, "the adoption begun");
    // A change to the thread while it is adopted (the adoption itself resumes its turns).
    const state = o.threads.get("mock", T);
    await o.own.settle(state);
    expect(o.cluster.holders().get(TID)).toBe("a");
    expect(o.threads.peek("mock", T)).toBe(state);
    expect(o.looked).toEqual([]);
    adoption.release();
    expect(await claim).toBe(true);
  });

  it("leaves a thread another instance holds alone: takes none of its messages and lets nothing go", async () => {
    const o = owner();
    await o.record(T, "for the holder");
    expect(await o.cluster.instance("b").acquireThread(TID)).toBe(true);
    const state = o.threads.get("mock", T);
    await o.own.settle(state);
    expect(o.taken).toEqual([]);
    expect(o.looked).toEqual([]);
    expect(o.cluster.holders().get(TID)).toBe("b");
    expect(o.threads.peek("mock", T)).toBe(state);
  });

  it("keeps a held thread with a message queued here without reading the store", async () => {
    const o = owner();
    expect(await o.own.claim("mock", T)).toBe(true);
    const state = o.threads.get("mock", T);
    state.queue.push({ inboxId: 1, text: "queued here", origin: { gateway: "mock", thread: T } });
    await o.own.settle(state);
    expect(o.looked).toEqual([]);
    expect(o.cluster.holders().get(TID)).toBe("a");
  });

  it("lets an idle held thread go and keeps nothing of the lock once it is given back", async () => {
    const giving = parked();
    const o = owner({
      coordination: (inner) => ({
        ...inner,
        releaseThread: async (key) => {
          await giving.reached();
          await inner.releaseThread(key);
        },
      }),
    });
    expect(await o.own.claim("mock", T)).toBe(true);
    const settled = o.own.settle(o.threads.get("mock", T));
    await until(() => giving.began, "the lock being given back");
    expect(o.own.givingBack).toBe(1);
    giving.release();
    await settled;
    expect(o.cluster.holders().has(TID)).toBe(false);
    expect(o.threads.peek("mock", T)).toBeUndefined();
    expect(o.own.givingBack).toBe(0);
  });
});

describe("a sweep for work nobody runs", () => {
  it("asks the lock once per thread nobody holds and reads the queued records of those it takes; nothing of a thread held here or elsewhere, or of a gateway not run here", async () => {
    const o = owner();
    for (const text of ["u1", "u2", "u3"]) await o.record("U", text);
    for (const text of ["b1", "b2"]) await o.record("B", text);
    await o.record("H", "h1");
    await o.record("X", "x1", "other");
    expect(await o.own.claim("mock", "H")).toBe(true);
    expect(await o.cluster.instance("b").acquireThread(gatewayThreadId("mock", "B"))).toBe(true);
    o.asked.length = 0;
    await o.own.sweep();
    // B's holder runs it: the coordination says its lock is held, so no attempt is made.
    expect(o.asked).toEqual([gatewayThreadId("mock", "U")]);
    expect(o.looked).toEqual([gatewayThreadId("mock", "U")]);
    expect(o.taken).toEqual(["u1", "u2", "u3"]);
  });

  it("reads nothing more of a thread whose turn runs on another instance (no suspended run looked up, no lock asked), and takes it once that instance let it go", async () => {
    const o = owner();
    const { id } = (await o.record("R", "r1")) as { id: number };
    const db = (o.own as unknown as { p: SessionParts }).p.store;
    await db.inbox.markRunning(id);
    const RID = gatewayThreadId("mock", "R");
    const b = o.cluster.instance("b");
    expect(await b.acquireThread(RID)).toBe(true);
    const runReads: string[] = [];
    const get = db.runStore.get.bind(db.runStore);
    db.runStore.get = (threadId) => {
      runReads.push(threadId);
      return get(threadId);
    };
    o.asked.length = 0;
    expect(await o.own.sweep()).toBe(true);
    expect(runReads).toEqual([]);
    expect(o.asked).toEqual([]);
    // The other instance died with its turn uncommitted: the next sweep looks and takes the thread.
    await b.releaseThread(RID);
    await o.own.sweep();
    expect(runReads).toEqual([RID]);
    expect(o.asked).toEqual([RID]);
  });
});

describe("a periodic sweep", () => {
  it("leaves a thread whose oldest unfinished message is younger than its minimum age, and takes it once that age is reached", async () => {
    const o = owner();
    await o.record("Y", "young");
    expect(await o.own.sweep(60_000)).toBe(false);
    expect(o.asked).toEqual([]);
    expect(o.looked).toEqual([]);
    expect(await o.own.sweep(0)).toBe(true);
    expect(o.asked).toEqual([TID.replace(T, "Y")]);
    expect(o.taken).toEqual(["young"]);
  });
});

describe("losing the locks of threads", () => {
  it("forgets each lost thread it held, whether its turn has ended or it has no state here yet, and says so for each", async () => {
    const o = owner();
    expect(await o.own.claim("mock", T)).toBe(true);
    expect(await o.own.claim("mock", "fresh")).toBe(true);
    // T's turn has ended and its settle is still reading the store when the connection drops.
    o.threads.get("mock", T);
    o.own.lost([TID, gatewayThreadId("mock", "fresh")]);
    expect(o.threads.peek("mock", T)).toBeUndefined();
    expect(o.own.holds(TID)).toBe(false);
    expect(o.own.holds(gatewayThreadId("mock", "fresh"))).toBe(false);
    const warned = o.logs.lines().filter((l) => l.level === 40);
    expect(warned.map((l) => l.threadId)).toEqual([TID, gatewayThreadId("mock", "fresh")]);
  });

  it("cancels a running turn once when its lock is lost twice (a refused fence, then the dropped connection)", async () => {
    const o = owner();
    expect(await o.own.claim("mock", T)).toBe(true);
    const state = turnOn(o.threads.get("mock", T), "running");
    o.own.lost([TID]);
    o.own.lost([TID]);
    expect(o.cancelled).toEqual([TID]);
    // It winds down here, uncommitted: its state stays until then.
    expect(o.threads.peek("mock", T)).toMatchObject({ lost: true });
    expect(state.lost).toBe(true);
  });

  it("refuses a commit whose lock the coordination says is gone, naming the thread and carrying the coordination's reason", async () => {
    const gone = new Error("a does not hold it");
    const o = owner({
      coordination: (inner) => ({
        ...inner,
        fence: async () => {
          throw gone;
        },
      }),
    });
    expect(await o.own.claim("mock", T)).toBe(true);
    const state = turnOn(o.threads.get("mock", T), "running");
    await expect(o.own.fence(state)).rejects.toMatchObject({
      message: `thread ${TID}: not committed, this instance no longer holds it`,
      cause: gone,
    });
    expect(state.lost).toBe(true);
    expect(o.cancelled).toEqual([TID]);
  });

  it("with a held lock to check, the fence goes into the write: a write refused as lock_not_held loses the thread, and only then is the coordination's fence asked (its link stops counting the lock)", async () => {
    const fences: string[] = [];
    const o = owner({
      coordination: (inner) => ({
        ...inner,
        heldLock: (key) => ({ pid: 4242, key: `key of ${key}`, incarnation: "4242" }),
        fence: async (key) => void fences.push(key),
      }),
    });
    expect(await o.own.claim("mock", T)).toBe(true);
    const state = turnOn(o.threads.get("mock", T), "running");
    const given: unknown[] = [];
    await o.own.fenced(state, async (lock, fenceAfter) => void given.push(lock, fenceAfter));
    expect(given).toEqual([{ pid: 4242, key: `key of ${TID}`, incarnation: "4242" }, false]);
    expect(state.lost).toBeUndefined();
    expect(fences).toEqual([]);
    const refused = Object.assign(new Error("the lock is gone"), { code: "lock_not_held" });
    await expect(
      o.own.fenced(state, async () => {
        throw refused;
      }),
    ).rejects.toMatchObject({
      message: `thread ${TID}: not committed, this instance no longer holds it`,
      cause: refused,
    });
    expect(fences).toEqual([TID]);
    expect(state.lost).toBe(true);
    expect(o.cancelled).toEqual([TID]);
  });

  it("a write's other failure is not a lost lock; without a held lock to check, the fence is asked after the write", async () => {
    const fences: string[] = [];
    const o = owner({
      coordination: (inner) => ({ ...inner, fence: async (key) => void fences.push(key) }),
    });
    expect(await o.own.claim("mock", T)).toBe(true);
    const state = turnOn(o.threads.get("mock", T), "running");
    const order: string[] = [];
    await o.own.fenced(
      state,
      async (lock, fenceAfter) => void order.push(`write ${String(lock)} ${fenceAfter}`),
    );
    // The write is told a fence follows: it must leave its transaction open for it.
    expect([...order, ...fences]).toEqual(["write undefined true", TID]);
    const full = new Error("disk full");
    await expect(
      o.own.fenced(state, async () => {
        throw full;
      }),
    ).rejects.toBe(full);
    expect(state.lost).toBeUndefined();
  });
});
