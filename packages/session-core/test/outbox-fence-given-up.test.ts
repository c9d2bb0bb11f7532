// What the outbox role fence relies on (outbox-fence.ts, chat-store outbox-fence.ts, #45.3): the store
// checks that some session holds each role named and that the sender's session is alive, so a read
// naming a role this instance gave back, which another instance took, passes. outbox-shares.ts gives
// a role back only after restricting its sender to the roles it keeps; a due read begun before that
// (its fence naming the role) returns pieces of the partition given up, and none of them is sent.
import { describe, expect, it } from "vitest";
import type { RoleFence } from "../src/outbox-fence.js";
import { MockGateway } from "../src/testing/index.js";
import { flush, piece, statuses, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();
useFakeClock();

const fenceOf = (keys: string[]) => (): RoleFence => ({ pid: 1, keys, incarnation: "9" });

describe("a due read in flight when the sender's share shrinks", () => {
  it("its pieces of the partitions given up meanwhile are not sent, though its fence named their roles", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { concurrency: 4, idlePollMs: 600_000 });
    await store.outbox.enqueue(["t0", "t1", "t2", "t3"].map((t) => piece("mock", t, `${t}p`)));
    const named: string[][] = [];
    let answer!: () => void;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const due = store.outbox.due.bind(store.outbox);
    store.outbox.due = async (now, limit, fence, share) => {
      named.push([...(fence?.keys ?? [])]);
      const rows = await due(now, limit, fence, share);
      // The first read is answered only once the share changed (the store's fence passed).
      if (named.length === 1) await held;
      return rows;
    };
    sender.restrict(undefined, fenceOf(["outbox:0", "outbox:1"]));
    sender.start();
    while (named.length === 0) await flush(1);
    // Partition 1 (threads t2, t3 here) given up, as outbox-shares.ts does it: restricted first.
    sender.restrict((row) => row.thread === "t0" || row.thread === "t1", fenceOf(["outbox:0"]));
    answer();
    while (mock.sent.length < 2) await flush(1);
    await sender.drained();
    await flush();
    expect(named[0]).toEqual(["outbox:0", "outbox:1"]);
    expect(mock.sent.map((s) => s.thread).sort()).toEqual(["t0", "t1"]);
    for (const t of ["t2", "t3"]) expect(await statuses(store, "mock", t)).toEqual([["pending", 0]]);
  });
});
