// When a backlog makes OutboxShares ask the other instances for help (outbox-shares.ts #backlog):
// only a leader that is not stopping and not already sharing asks, it gives partitions 1-3 up once
// a helper answered and the helpers had time to line up (partition 0 stays), and it queues for them
// again at once, behind the helpers, trying one nobody took 2 s later (one a helper gives back is
// taken as its release is announced), unless it stopped leading meanwhile. Unanswered (one
// instance), it gives nothing up and asks again 2.2 s later at the earliest.
import { describe, expect, it, vi } from "vitest";
import type { ClusterMessage } from "../src/coordination.js";
import { fakeClockEachTest, helpAsks as helps, sharesRig as rig } from "./outbox-shares-fixture.js";

fakeClockEachTest();

describe("a backlog on the leader's sender", () => {
  it("asks for help once, gives partitions 1-3 up after the line-up, and queues for them again at once, a free one tried 2 s later", async () => {
    const { shares, asked, waits, left, published, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    expect(helps(published)).toBe(1);
    shares.helping();
    const before = asked.length;
    await vi.advanceTimersByTimeAsync(250);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    expect(asked.slice(before).sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    expect(waits.slice(before)).toEqual([2_000, 2_000, 2_000]);
    // Its first lead of each tried at once.
    expect(waits.slice(0, before)).toEqual([undefined, undefined, undefined, undefined]);
    await shares.stop();
  });

  it("unanswered, gives no partition up, and a backlog 2.2 s after the ask asks again", async () => {
    const { shares, left, published, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    await vi.advanceTimersByTimeAsync(2_100);
    expect(left).toEqual([]);
    backlog();
    expect(helps(published)).toBe(1);
    await vi.advanceTimersByTimeAsync(150);
    backlog();
    expect(helps(published)).toBe(2);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(left).toEqual([]);
    await shares.stop();
  });

  it("an answer after the line-up gives partitions 1-3 up at once; a second answer gives nothing more", async () => {
    const { shares, left, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(left).toEqual([]);
    shares.helping();
    await vi.advanceTimersByTimeAsync(0);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    shares.helping();
    await vi.advanceTimersByTimeAsync(0);
    expect(left).toHaveLength(3);
    await shares.stop();
  });

  it("an answer with no ask in progress, or on a helper, gives nothing up", async () => {
    const { shares, left, grantAll } = rig();
    shares.lead();
    grantAll();
    shares.helping();
    await vi.advanceTimersByTimeAsync(2_500);
    expect(left).toEqual([]);
    await shares.stop();
  });

  it("a helper answers each ask, queued or already in the line; a leader or a stopping one does not", async () => {
    const answers = (published: ClusterMessage[]) =>
      published.filter((m) => m.kind === "outbox-help" && m.helping).length;
    const helper = rig();
    helper.shares.help();
    helper.shares.help();
    expect(answers(helper.published)).toBe(2);
    expect(helper.asked.filter((r) => r === "outbox:1")).toHaveLength(1);
    await helper.shares.stop();
    const leader = rig();
    leader.shares.lead();
    leader.shares.help();
    const stopping = rig({ stopping: () => true });
    stopping.shares.help();
    expect(answers(leader.published) + answers(stopping.published)).toBe(0);
    await leader.shares.stop();
  });

  it("a second backlog while the partitions are shared asks no one again", async () => {
    const { shares, published, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    shares.helping();
    await vi.advanceTimersByTimeAsync(250);
    backlog();
    await vi.advanceTimersByTimeAsync(250);
    expect(helps(published)).toBe(1);
    await shares.stop();
  });

  it("while the instance stops: no one is asked and no partition is given up", async () => {
    const { shares, left, published, grantAll, backlog } = rig({ stopping: () => true });
    shares.lead();
    grantAll();
    backlog();
    await vi.advanceTimersByTimeAsync(2_500);
    expect(helps(published)).toBe(0);
    expect(left).toEqual([]);
    await shares.stop();
  });

  it("on a helper (not leading): no one is asked", async () => {
    const { shares, published, backlog } = rig();
    shares.help();
    backlog();
    await vi.advanceTimersByTimeAsync(250);
    expect(helps(published)).toBe(0);
    await shares.stop();
  });

  it("a leader that stops leading after giving partitions up does not queue for them again", async () => {
    const { shares, asked, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    shares.helping();
    await vi.advanceTimersByTimeAsync(250);
    await shares.unlead();
    const before = asked.length;
    await vi.advanceTimersByTimeAsync(2_500);
    expect(asked.length).toBe(before);
    await shares.stop();
  });

  it("a leader that stops leading while its batch in flight ends, before the partitions it gives up are left, does not queue for them again", async () => {
    const { shares, sender, asked, left, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    let batchOver = () => {};
    const inFlight = new Promise<void>((resolve) => {
      batchOver = resolve;
    });
    sender.drained = () => inFlight;
    backlog();
    shares.helping();
    // The line-up over: partitions 1-3 are left once the sender's batch in flight is over.
    await vi.advanceTimersByTimeAsync(250);
    expect(left).toEqual([]);
    const unleading = shares.unlead();
    batchOver();
    await unleading;
    await vi.advanceTimersByTimeAsync(2_500);
    expect(left.sort()).toEqual(["outbox:0", "outbox:1", "outbox:2", "outbox:3"]);
    expect(asked).toEqual(["outbox:0", "outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("a leader that stops leading during the line-up and helps another keeps the partitions it helps with", async () => {
    const { shares, left, grantAll, grant, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    shares.helping();
    await shares.unlead();
    shares.help();
    grant(1);
    grant(2);
    await vi.advanceTimersByTimeAsync(0);
    const leftBefore = [...left];
    await vi.advanceTimersByTimeAsync(250);
    expect(left).toEqual(leftBefore);
    await shares.stop();
  });
});
