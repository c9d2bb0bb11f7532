// What OutboxShares tells its sender as the outbox roles come and go (outbox-shares.ts #apply): the
// pieces of the partitions it holds, the share its due reads name to the store (those partitions of
// four, the registered gateways spread by hash), and the fence naming those roles; once it holds
// every partition again, every piece. A leader that took the partitions back after sharing them must
// send them all.
import { describe, expect, it } from "vitest";
import { OUTBOX_PARTITIONS } from "../src/outbox-shares.js";
import type { OutboxRow } from "../src/store.js";
import { fakeCoordination, fakeSender, type Restriction, sharesOver } from "./outbox-shares-fixture.js";

/** A leader's shares over a coordination whose roles are granted by the test (`grant`). */
function leader() {
  const { coordination, grant } = fakeCoordination();
  const { sender, restrictions } = fakeSender();
  const shares = sharesOver(coordination, sender, {
    pinned: (gateway) => gateway === "push",
    gateways: () => ["http", "push"],
  });
  shares.lead();
  return { grant, restrictions, last: () => restrictions.at(-1) as Restriction };
}

/** Pieces of many threads: every partition has some. */
const rows = Array.from({ length: 64 }, (_, i) => ({ gateway: "http", thread: `t${i}` }) as OutboxRow);
const sent = (r: Restriction) => rows.filter((row) => r.mine?.(row) ?? true);

describe("the outbox partitions a leader holds, as its sender is told", () => {
  it("one partition of four: a quarter of the pieces, that partition named to the store with the gateways spread by hash (a pinned one left out), fenced by that role", () => {
    const { grant, last } = leader();
    grant(0);
    expect(sent(last()).length).toBeGreaterThan(0);
    expect(sent(last()).length).toBeLessThan(rows.length);
    expect(last().share?.()).toEqual({ of: OUTBOX_PARTITIONS, parts: [0], hashed: ["http"] });
    expect(last().fence?.()).toEqual({ pid: 42, keys: ["outbox:0"] });
  });

  it("every partition again: every piece, fenced by all the roles", () => {
    const { grant, last } = leader();
    for (let p = 0; p < OUTBOX_PARTITIONS - 1; p++) grant(p);
    expect(sent(last()).length).toBeLessThan(rows.length);
    grant(OUTBOX_PARTITIONS - 1);
    expect(sent(last())).toEqual(rows);
    expect(last().share).toBeUndefined();
    expect(last().fence?.().keys.sort()).toEqual(["outbox:0", "outbox:1", "outbox:2", "outbox:3"]);
  });
});
