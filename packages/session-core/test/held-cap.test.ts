// HeldCap on its own: the places it counts (locks held, takes in flight, woken threads), the line
// of threads waiting for room, and who is taken when a place is freed. The session's use of it:
// session-held-cap.test.ts (memory cluster) and session-held-cap-pg.test.ts (PostgreSQL).
import { afterEach, describe, expect, it, vi } from "vitest";
import { HeldCap } from "../src/held-cap.js";

/** A cap of `max` over `locks` held; `takes` lists the threads it takes, each settled by the test. */
function cap(max: number) {
  const state = { locks: 0 };
  const takes: { thread: string; done(): void }[] = [];
  const tracked: Promise<unknown>[] = [];
  const warned: object[] = [];
  const c = new HeldCap(max, {
    locks: () => state.locks,
    take: (_gateway, thread) =>
      new Promise<void>((done) => {
        takes.push({ thread, done });
      }),
    track: (work) => tracked.push(work),
    logger: { warn: (obj) => void warned.push(obj) },
  });
  const reserve = (thread: string) => c.reserve("g", thread, `g:${thread}`);
  return { c, state, takes, tracked, warned, reserve };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the cap on threads held at once", () => {
  it("counts a take in flight as a place: a third thread waits under a cap of 2 before either lock is held", () => {
    const { c, reserve } = cap(2);
    expect(reserve("a")).toBe(true);
    expect(reserve("b")).toBe(true);
    expect(reserve("c")).toBe(false);
    expect(c.waiting).toBe(1);
    expect(c.isWaiting("g:c")).toBe(true);
    expect(c.isWaiting("g:a")).toBe(false);
  });

  it("takes the oldest waiting thread when a take answers without a lock, and keeps a waiting thread's place when it asks again", async () => {
    const { c, takes, tracked, reserve } = cap(1);
    expect(reserve("a")).toBe(true);
    expect(reserve("b")).toBe(false);
    expect(reserve("c")).toBe(false);
    expect(reserve("b")).toBe(false);
    // a's lock was held elsewhere: its place is free again.
    c.taken();
    expect(takes.map((t) => t.thread)).toEqual(["b"]);
    expect(tracked).toHaveLength(1);
    // b was woken for the place: it gets it though c still waits; a new thread waits behind c.
    expect(reserve("d")).toBe(false);
    expect(reserve("b")).toBe(true);
    expect(c.waiting).toBe(2);
    expect(c.isWaiting("g:c")).toBe(true);
  });

  it("takes the next waiting thread when a woken take never asked for its place", async () => {
    const { c, takes, reserve } = cap(1);
    expect(reserve("a")).toBe(true);
    expect(reserve("b")).toBe(false);
    expect(reserve("c")).toBe(false);
    c.taken();
    expect(takes.map((t) => t.thread)).toEqual(["b"]);
    // b's take ended without reaching reserve (stopping, a turn lost here winding down).
    takes[0]?.done();
    await settle();
    expect(takes.map((t) => t.thread)).toEqual(["b", "c"]);
    expect(reserve("c")).toBe(true);
    expect(c.waiting).toBe(0);
  });

  it("wakes as many waiting threads as there are places, counting locks held and woken threads", () => {
    const { c, state, takes, reserve } = cap(3);
    for (const t of ["a", "b", "c"]) expect(reserve(t)).toBe(true);
    for (const t of ["d", "e", "f"]) expect(reserve(t)).toBe(false);
    state.locks = 3;
    for (let i = 0; i < 3; i++) c.taken();
    expect(takes).toEqual([]);
    // Two locks given back.
    state.locks = 1;
    c.wake();
    expect(takes.map((t) => t.thread)).toEqual(["d", "e"]);
    expect(c.waiting).toBe(1);
  });

  it("warns when a thread first waits, then at most once a minute while threads wait", () => {
    let now = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const { warned, reserve } = cap(1);
    expect(reserve("a")).toBe(true);
    expect(reserve("b")).toBe(false);
    expect(warned).toEqual([{ max: 1, waiting: 1 }]);
    now += 59_999;
    expect(reserve("c")).toBe(false);
    expect(warned).toHaveLength(1);
    now += 1;
    expect(reserve("d")).toBe(false);
    expect(warned).toEqual([
      { max: 1, waiting: 1 },
      { max: 1, waiting: 3 },
    ]);
  });
});
