// How OutboxShares leaves the roles of the partitions it gives up (outbox-shares.ts #giveUp): all
// at once, not one after another. On PostgreSQL each role is an advisory lock on the instance's
// link, and give-backs asked in one tick share one statement (pg-cluster lock-batch.ts); left one
// after another, a leader sharing a backlog gave 3 locks back in 3 statements, a helper 2 in 2.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Coordination } from "../src/coordination.js";
import type { OutboxSender } from "../src/outbox-sender.js";
import { OUTBOX_PARTITIONS, OutboxShares } from "../src/outbox-shares.js";

describe("the outbox partitions a leader gives up under a backlog", () => {
  it("are left together: every role's stop is asked before any has ended", async () => {
    const handlers = new Map<string, { onLead(): unknown; onLose(): unknown }>();
    const asked: string[] = [];
    const ended: string[] = [];
    /** How many stops had been asked as each one ended. */
    const askedAtEnd: number[] = [];
    const coordination = {
      shared: true,
      lead(role: string, h: { onLead(): unknown; onLose(): unknown }) {
        handlers.set(role, h);
        return async () => {
          asked.push(role);
          // A give-back takes a round trip: the next is asked meanwhile, or only after it.
          await new Promise((resolve) => setTimeout(resolve, 20));
          ended.push(role);
          askedAtEnd.push(asked.length);
        };
      },
      publish: async () => {},
      roleLock: (role: string) => ({ pid: 42, key: role }),
    } as unknown as Coordination;
    const sender = {
      running: false,
      pressure: undefined as OutboxSender["pressure"],
      start() {
        this.running = true;
      },
      wake() {},
      async stop() {
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
    shares.lead();
    for (let p = 0; p < OUTBOX_PARTITIONS; p++) handlers.get(`outbox:${p}`)?.onLead();
    sender.pressure?.backlog();
    for (let i = 0; i < 100 && ended.length < OUTBOX_PARTITIONS - 1; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    expect(ended).toHaveLength(OUTBOX_PARTITIONS - 1);
    // Every stop was asked before the first ended (one after another, one of them ended first).
    expect(askedAtEnd[0]).toBe(OUTBOX_PARTITIONS - 1);
    await shares.stop();
  });
});
