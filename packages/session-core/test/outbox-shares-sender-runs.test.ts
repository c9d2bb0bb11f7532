// Whether OutboxShares runs its sender as outbox partitions come and go (outbox-shares.ts #apply):
// started with the first partition held, woken for itself alone (not passed on to the other
// instances' senders) as its share grows or shrinks, stopped when it holds none.
import { describe, expect, it } from "vitest";
import { fakeCoordination, fakeSender, sharesOver } from "./outbox-shares-fixture.js";

function rig() {
  const { coordination, role } = fakeCoordination();
  const { sender, calls } = fakeSender();
  const shares = sharesOver(coordination, sender);
  return { shares, sender, calls, role };
}

describe("the outbox sender as partitions come and go", () => {
  it("starts with the first partition held, and is woken for itself alone as more come", async () => {
    const { shares, calls, role } = rig();
    shares.lead();
    expect(calls).toEqual([]);
    role(0).onLead();
    expect(calls).toEqual(["start"]);
    role(1).onLead();
    expect(calls).toEqual(["start", "wake(true)"]);
    await shares.stop();
  });

  it("keeps running while it holds a partition, and stops when it holds none", async () => {
    const { shares, sender, calls, role } = rig();
    shares.lead();
    role(0).onLead();
    role(1).onLead();
    role(1).onLose();
    expect(sender.running).toBe(true);
    expect(calls).toEqual(["start", "wake(true)", "wake(true)"]);
    role(0).onLose();
    expect(calls.at(-1)).toBe("stop");
    expect(sender.running).toBe(false);
    await shares.stop();
  });

  it("stops once the instance stops leading while it held some of the partitions it queued for", async () => {
    const { shares, sender, calls, role } = rig();
    shares.lead();
    role(0).onLead();
    role(2).onLead();
    await shares.unlead();
    expect(calls.at(-1)).toBe("stop");
    expect(sender.running).toBe(false);
    await shares.stop();
  });
});
