// When a backlog makes OutboxShares ask the other instances for help (outbox-shares.ts #backlog):
// only a leader that is not stopping and not already sharing asks, it gives partitions 1-3 up once
// the helpers had time to line up (partition 0 stays), and it queues for them again 2 s later,
// behind the helpers, unless it stopped leading meanwhile.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ClusterMessage } from "../src/coordination.js";
import { OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import { fakeCoordination, fakeSender, sharesOver } from "./outbox-shares-fixture.js";

/** Shares over a coordination that grants each role when asked and records what is published. */
function rig(opts: { stopping?: () => boolean } = {}) {
  /** Each role left (its stop). */
  const left: string[] = [];
  const { coordination, asked, published, grant } = fakeCoordination((role) => left.push(role));
  const { sender } = fakeSender();
  const shares = sharesOver(coordination, sender, opts.stopping ? { stopping: opts.stopping } : {});
  const grantAll = () => {
    for (let p = 0; p < OUTBOX_PARTITIONS; p++) grant(p);
  };
  const backlog = () => sender.pressure?.backlog();
  return { shares, asked, left, published, grantAll, grant, backlog };
}

const helps = (published: ClusterMessage[]) => published.filter((m) => m.kind === "outbox-help").length;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a backlog on the leader's sender", () => {
  it("asks for help once, gives partitions 1-3 up after the line-up, and queues for them again 2 s later", async () => {
    const { shares, asked, left, published, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
    expect(helps(published)).toBe(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    const before = asked.length;
    await vi.advanceTimersByTimeAsync(1_900);
    expect(asked.length).toBe(before);
    await vi.advanceTimersByTimeAsync(200);
    expect(asked.slice(before).sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("a second backlog while the partitions are shared asks no one again", async () => {
    const { shares, published, grantAll, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
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
    await vi.advanceTimersByTimeAsync(250);
    await shares.unlead();
    const before = asked.length;
    await vi.advanceTimersByTimeAsync(2_500);
    expect(asked.length).toBe(before);
    await shares.stop();
  });

  it("a leader that stops leading during the line-up and helps another keeps the partitions it helps with", async () => {
    const { shares, left, grantAll, grant, backlog } = rig();
    shares.lead();
    grantAll();
    backlog();
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
