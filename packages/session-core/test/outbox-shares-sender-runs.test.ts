// Whether OutboxShares runs its sender as outbox partitions come and go (outbox-shares.ts #apply):
// started with the first partition held, woken for itself alone (not passed on to the other
// instances' senders) as its share grows or shrinks, stopped when it holds none.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Coordination } from "../src/coordination.js";
import type { OutboxSender } from "../src/outbox-sender.js";
import { OutboxShares } from "../src/outbox-shares.js";

function rig() {
  const handlers = new Map<string, { onLead(): unknown; onLose(): unknown }>();
  const coordination = {
    shared: true,
    lead(role: string, h: { onLead(): unknown; onLose(): unknown }) {
      handlers.set(role, h);
      return async () => {};
    },
    publish: async () => {},
    roleLock: (role: string) => ({ pid: 42, key: role }),
  } as unknown as Coordination;
  const calls: string[] = [];
  const sender = {
    running: false,
    pressure: undefined as OutboxSender["pressure"],
    start() {
      calls.push("start");
      this.running = true;
    },
    wake(fromElsewhere?: boolean) {
      calls.push(`wake(${fromElsewhere})`);
    },
    async stop() {
      calls.push("stop");
      this.running = false;
    },
    async drained() {},
    restrict() {},
  };
  const shares = new OutboxShares({
    coordination,
    sender: sender as unknown as OutboxSender,
    pinned: () => false,
    gateways: () => ["http"],
    logger: pino({ level: "silent" }),
    stopping: () => false,
  });
  const role = (p: number) => handlers.get(`outbox:${p}`) as { onLead(): unknown; onLose(): unknown };
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
