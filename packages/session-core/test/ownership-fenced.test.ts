// The write ending a turn, fenced (Ownership.fenced): with the lock its statement checks (a
// coordination with heldLock and a store whose inbox can finish with it, as on PostgreSQL) or with
// the fence asked after it. A statement refused with lock_not_held loses the thread (#45.5); any
// other failure is handed on. Found by `pnpm mutate session-core src/ownership.ts` (#45): no test of
// this package, the PostgreSQL ones included, failed a write with the lock for another reason (any
// failure could have lost the thread) or had a heldLock that throws. Instance "a" of a memory
// cluster, given the heldLock PostgreSQL's coordination has.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { HeldLock } from "../src/coordination.js";
import { type Coordination, GatewayRegistry } from "../src/index.js";
import { Ownership } from "../src/ownership.js";
import type { SessionParts } from "../src/parts.js";
import { createMemoryCluster, createMockGateway } from "../src/testing/index.js";
import { type ThreadState, Threads } from "../src/threads.js";

const T = "gw:mock:T";

/** `a` holding thread T; `heldLock` as PostgreSQL's coordination answers it, unless `lockless`. */
async function holding(
  options: { lockless?: boolean; finish?: boolean; heldLock?: (key: string) => HeldLock } = {},
) {
  const cluster = createMemoryCluster();
  const base = cluster.instance("a");
  const fences: string[] = [];
  const lockOf = (key: string): HeldLock => {
    if (cluster.holders().get(key) !== "a") throw new Error(`a does not hold ${key}`);
    return { pid: 4242, key, incarnation: "7" };
  };
  const coordination: Coordination = {
    ...base,
    fence: async (key) => {
      fences.push(key);
      await base.fence?.(key);
    },
    ...(options.lockless ? {} : { heldLock: options.heldLock ?? lockOf }),
  };
  const registry = new GatewayRegistry();
  registry.register(createMockGateway({}));
  const threads = new Threads();
  const cancelled: string[] = [];
  const parts = {
    store: {
      inbox: { queued: async () => [], ...(options.finish === false ? {} : { finish: async () => {} }) },
    },
    registry,
    threads,
    logger: pino({ level: "silent" }),
    runs: {
      release() {},
      cancel: (threadId: string) => {
        cancelled.push(threadId);
        return true;
      },
    },
    track: (work: Promise<unknown>) => void work.catch(() => undefined),
    stopping: () => false,
  } as unknown as SessionParts;
  const own = new Ownership(parts, coordination, { adopt: async () => {}, onMessage: async () => {} });
  expect(await own.claim("mock", "T")).toBe(true);
  let state: ThreadState | undefined;
  await threads.with("mock", "T", async (s) => {
    s.active = {
      inboxId: 1,
      phase: "running",
      origin: { gateway: "mock", thread: "T" },
      steered: [],
      committed: false,
    };
    state = s;
  });
  if (!state) throw new Error("no state");
  return { own, state, fences, cancelled, cluster };
}

/** What `write` was handed, and a write that then does `then`. */
function writes(then: () => void = () => {}) {
  const handed: [HeldLock | undefined, boolean][] = [];
  const write = async (lock: HeldLock | undefined, fenceAfter: boolean) => {
    handed.push([lock, fenceAfter]);
    then();
  };
  return { handed, write };
}

describe("a turn's fenced write", () => {
  it("refused lock_not_held by its statement is not committed: the thread is lost here, its turn cancelled, and the coordination told", async () => {
    const h = await holding();
    const refusal = Object.assign(new Error("lock 123 not held"), { code: "lock_not_held" });
    const w = writes(() => {
      throw refusal;
    });
    const error = await h.own.fenced(h.state, w.write).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toBe(`thread ${T}: not committed, this instance no longer holds it`);
    expect(error?.cause).toBe(refusal);
    expect(w.handed).toEqual([[{ pid: 4242, key: T, incarnation: "7" }, false]]);
    // Asked of the coordination too, so a lock its server says is gone stops counting as held there.
    expect(h.fences).toEqual([T]);
    expect(h.own.holdsAny).toBe(false);
    expect(h.state.lost).toBe(true);
    expect(h.cancelled).toEqual([T]);
  });

  it("failing for another reason is handed on as it is; the thread stays held and nothing else is asked", async () => {
    const h = await holding();
    const failure = Object.assign(new Error("disk full"), { code: "SQLITE_FULL" });
    const w = writes(() => {
      throw failure;
    });
    await expect(h.own.fenced(h.state, w.write)).rejects.toBe(failure);
    expect(h.fences).toEqual([]);
    expect(h.own.holdsAny).toBe(true);
    expect(h.state.lost).toBeUndefined();
    expect(h.cancelled).toEqual([]);
  });

  it("with the lock checked in its statement asks no fence after it; without heldLock or a store that can finish with it, the fence follows the write, which is told so", async () => {
    const checked = await holding();
    const w1 = writes();
    await checked.own.fenced(checked.state, w1.write);
    expect(w1.handed).toEqual([[{ pid: 4242, key: T, incarnation: "7" }, false]]);
    expect(checked.fences).toEqual([]);
    for (const options of [{ lockless: true }, { finish: false }]) {
      const after = await holding(options);
      const w2 = writes();
      await after.own.fenced(after.state, w2.write);
      expect(w2.handed, JSON.stringify(options)).toEqual([[undefined, true]]);
      expect(after.fences, JSON.stringify(options)).toEqual([T]);
    }
  });

  it("whose lock is not counted held when it starts is refused before the write: not committed, the thread lost", async () => {
    const gone = new Error("not held here");
    const h = await holding({
      heldLock: () => {
        throw gone;
      },
    });
    const w = writes();
    const error = await h.own.fenced(h.state, w.write).catch((e: unknown) => e as Error);
    expect(error?.message).toBe(`thread ${T}: not committed, this instance no longer holds it`);
    expect(error?.cause).toBe(gone);
    expect(w.handed).toEqual([]);
    expect(h.own.holdsAny).toBe(false);
    expect(h.cancelled).toEqual([T]);
  });
});
