// How OutboxShares leaves the roles of the partitions it gives up (outbox-shares.ts #giveUp): all
// at once, not one after another. On PostgreSQL each role is an advisory lock on the instance's
// link, and give-backs asked in one tick share one statement (pg-cluster lock-batch.ts); left one
// after another, a leader sharing a backlog gave 3 locks back in 3 statements, a helper 2 in 2.
import { describe, expect, it } from "vitest";
import { OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import { fakeCoordination, fakeSender, sharesOver } from "./outbox-shares-fixture.js";

describe("the outbox partitions a leader gives up under a backlog", () => {
  it("are left together: every role's stop is asked before any has ended", async () => {
    const asked: string[] = [];
    const ended: string[] = [];
    /** How many stops had been asked as each one ended. */
    const askedAtEnd: number[] = [];
    const { coordination, grant } = fakeCoordination(async (role) => {
      asked.push(role);
      // A give-back takes a round trip: the next is asked meanwhile, or only after it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      ended.push(role);
      askedAtEnd.push(asked.length);
    });
    const { sender } = fakeSender();
    const shares = sharesOver(coordination, sender);
    shares.lead();
    for (let p = 0; p < OUTBOX_PARTITIONS; p++) grant(p);
    sender.pressure?.backlog();
    shares.helping(); // a helper answered
    for (let i = 0; i < 100 && ended.length < OUTBOX_PARTITIONS - 1; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    expect(ended).toHaveLength(OUTBOX_PARTITIONS - 1);
    // Every stop was asked before the first ended (one after another, one of them ended first).
    expect(askedAtEnd[0]).toBe(OUTBOX_PARTITIONS - 1);
    await shares.stop();
  });
});
