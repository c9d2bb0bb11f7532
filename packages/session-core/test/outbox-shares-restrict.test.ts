// What OutboxShares tells its sender as the outbox roles come and go (outbox-shares.ts #apply): the
// pieces of the partitions it holds, the share its due reads name to the store (those partitions of
// four, the registered gateways spread by hash), and the fence naming those roles; once it holds
// every partition again, every piece. A leader that took the partitions back after sharing them must
// send them all.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Coordination } from "../src/coordination.js";
import type { RoleFence } from "../src/outbox-fence.js";
import type { OutboxShare } from "../src/outbox-partition.js";
import type { OutboxSender } from "../src/outbox-sender.js";
import { OUTBOX_PARTITIONS, OutboxShares } from "../src/outbox-shares.js";
import type { OutboxRow } from "../src/store.js";

interface Restriction {
  mine: ((row: OutboxRow) => boolean) | undefined;
  fence: (() => RoleFence) | undefined;
  share: (() => OutboxShare) | undefined;
}

/** A leader's shares over a coordination whose roles are granted by the test (`grant`). */
function leader() {
  const handlers = new Map<string, { onLead(): unknown; onLose(): unknown }>();
  const coordination = {
    shared: true,
    lead(role: string, h: { onLead(): unknown; onLose(): unknown }) {
      handlers.set(role, h);
      return async () => {};
    },
    roleLock: (role: string) => ({ pid: 42, key: role }),
  } as unknown as Coordination;
  const restrictions: Restriction[] = [];
  const state = { running: false };
  const sender = {
    get running() {
      return state.running;
    },
    start() {
      state.running = true;
    },
    wake() {},
    async stop() {
      state.running = false;
    },
    async drained() {},
    restrict(mine: Restriction["mine"], fence?: Restriction["fence"], share?: Restriction["share"]) {
      restrictions.push({ mine, fence, share });
    },
  } as unknown as OutboxSender;
  const shares = new OutboxShares({
    coordination,
    sender,
    pinned: (gateway) => gateway === "push",
    gateways: () => ["http", "push"],
    logger: pino({ level: "silent" }),
    stopping: () => false,
  });
  shares.lead();
  const grant = (partition: number) => handlers.get(`outbox:${partition}`)?.onLead();
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
