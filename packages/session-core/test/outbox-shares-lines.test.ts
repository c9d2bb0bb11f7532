// The outbox roles an instance queues for and leaves (outbox-shares.ts #queue, #gained, #giveUp,
// #unserved, #passed): a leader queues for the four roles once, a helper for 1-3 and keeps at most
// two; a helper leaves the lines it was not given at its first empty pass, and all of them when given
// none for helperIdleMs; a partition held is left only once the sender's batch in flight is over,
// a line never served at once; unlead and stop end once the roles are left.
import { describe, expect, it, vi } from "vitest";
import type { Coordination } from "../src/coordination.js";
import { fakeClockEachTest, fakeSender, sharesOver, sharesRig } from "./outbox-shares-fixture.js";

/** Not the 5 s default: a test at the default cannot tell the option from it. */
const IDLE_MS = 1_000;

/** Each role's stop awaits `leave` (default: nothing) before it counts as left. */
const rig = (leave: (role: string) => unknown = () => undefined) =>
  sharesRig({ helperIdleMs: IDLE_MS }, leave);

/** A coordination that grants every role inside lead(), as a free lock can be. */
function grantingCoordination() {
  const left: string[] = [];
  const coordination = {
    shared: true,
    lead(role: string, h: { onLead(): unknown }) {
      h.onLead();
      return async () => {
        left.push(role);
      };
    },
    publish: async () => {},
    roleLock: (role: string) => ({ pid: 42, key: role }),
  } as unknown as Coordination;
  return { coordination, left };
}

/** A promise and its resolve, for a sender whose batch in flight ends when the test says. */
function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

fakeClockEachTest();

describe("the outbox roles an instance queues for", () => {
  it("a leader queues for the four, once each; a helper that comes to lead adds only outbox:0", async () => {
    const leader = rig();
    leader.shares.lead();
    leader.shares.lead();
    expect(leader.asked).toEqual(["outbox:0", "outbox:1", "outbox:2", "outbox:3"]);
    await leader.shares.stop();

    const helper = rig();
    helper.shares.help();
    helper.shares.lead();
    expect(helper.asked).toEqual(["outbox:1", "outbox:2", "outbox:3", "outbox:0"]);
    await helper.shares.stop();
  });

  it("a helper keeps two partitions: given a second it leaves the third's line, and one granted at once beyond two is given back", async () => {
    const { shares, grant, left } = rig();
    shares.help();
    grant(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(left).toEqual([]);
    grant(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(left).toEqual(["outbox:3"]);
    await shares.stop();

    // Free locks: each role is granted inside lead(), the third before the share's check could leave its line.
    const { coordination, left: freed } = grantingCoordination();
    const { sender, restrictions } = fakeSender();
    const granted = sharesOver(coordination, sender);
    granted.help();
    await vi.advanceTimersByTimeAsync(0);
    expect(freed).toEqual(["outbox:3"]);
    expect(restrictions.at(-1)?.share?.().parts).toEqual([1, 2]);
    await granted.stop();
  });

  it("a leader keeps all four", async () => {
    const { shares, grant, left } = rig();
    shares.lead();
    for (let p = 0; p < 4; p++) grant(p);
    await vi.advanceTimersByTimeAsync(0);
    expect(left).toEqual([]);
    await shares.stop();
  });
});

describe("the lines a helper leaves", () => {
  it("at its first empty pass, the lines of the partitions it was not given", async () => {
    const { shares, grant, left, pass } = rig();
    shares.help();
    grant(1);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(left.sort()).toEqual(["outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("every line, given no partition helperIdleMs after it offered help; and it helps again at the next ask", async () => {
    const { shares, asked, left } = rig();
    shares.help();
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
    expect(left).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    const before = asked.length;
    shares.help();
    expect(asked.slice(before).sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("none, given a partition before helperIdleMs", async () => {
    const { shares, grant, left } = rig();
    shares.help();
    grant(1);
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(left).toEqual([]);
    await shares.stop();
  });

  it("every partition, an empty pass helperIdleMs after the first, however often it was asked again meanwhile", async () => {
    const { shares, grant, left, pass } = rig();
    shares.help();
    grant(1);
    grant(2);
    pass(0);
    await vi.advanceTimersByTimeAsync(IDLE_MS / 2);
    shares.help(); // another ask: it answers, its idle time goes on
    await vi.advanceTimersByTimeAsync(IDLE_MS / 2);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("not at an earlier offer's check: offered again since, it is given helperIdleMs from the new offer", async () => {
    const { shares, left } = rig();
    shares.help();
    await vi.advanceTimersByTimeAsync(IDLE_MS / 4);
    // It led for a moment (the leader died, then it lost the role): then it offers help again.
    shares.lead();
    await shares.unlead();
    const leftBefore = left.length;
    shares.help();
    await vi.advanceTimersByTimeAsync(IDLE_MS - IDLE_MS / 4);
    expect(left).toHaveLength(leftBefore);
    await vi.advanceTimersByTimeAsync(IDLE_MS / 4);
    expect(left.slice(leftBefore).sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });
});

describe("giving partitions up", () => {
  it("a partition held is left once the sender's batch in flight is over, the sender told first", async () => {
    const { shares, sender, grant, left, restrictions, pass } = rig();
    const batch = deferred();
    sender.drained = () => batch.promise;
    shares.help();
    grant(1);
    pass(0);
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    // The lines never served are left at once; outbox:1 waits for the batch.
    expect(left.sort()).toEqual(["outbox:2", "outbox:3"]);
    expect(restrictions.at(-1)?.share?.().parts).toEqual([]);
    batch.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("lines never served are left without waiting for the sender", async () => {
    const { shares, sender, left } = rig();
    sender.drained = () => new Promise(() => {});
    shares.help();
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("unlead and stop end once every role is left", async () => {
    const leaving = deferred();
    const { shares, grant, left } = rig(() => leaving.promise);
    shares.lead();
    for (let p = 0; p < 4; p++) grant(p);
    let unled = false;
    void shares.unlead().then(() => (unled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(unled).toBe(false);
    leaving.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(unled).toBe(true);
    expect(left.sort()).toEqual(["outbox:0", "outbox:1", "outbox:2", "outbox:3"]);

    const stopped = rig();
    stopped.shares.lead();
    await stopped.shares.stop();
    expect(stopped.left.sort()).toEqual(["outbox:0", "outbox:1", "outbox:2", "outbox:3"]);
  });

  it("after stop, a backlog asks no one", async () => {
    const { shares, sender, grant, published } = rig();
    shares.lead();
    for (let p = 0; p < 4; p++) grant(p);
    await shares.stop();
    sender.pressure?.backlog();
    expect(published).toEqual([]);
  });
});
