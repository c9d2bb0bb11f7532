// A backlog read ahead (outbox-waves.ts): after a full read, a pass reads READ_AHEAD batches at once
// and sends them `concurrency` at a time, so a backlog costs a due read per READ_AHEAD batches;
// never more sends in flight than the concurrency, and a wave after a gateway was held, a share
// given up or the sender stopped sends none of what is no longer its to send (it stays pending).
import { describe, expect, it } from "vitest";
import { READ_AHEAD } from "../src/outbox-waves.js";
import { MockGateway } from "../src/testing/index.js";
import {
  dueLimits,
  flush,
  GatedGateway,
  heads,
  statuses,
  useFakeClock,
  useSender,
} from "./outbox-harness.js";

const setUp = useSender();
useFakeClock();

/**
 * Lets the first read's wave (t0, t1) go and waits for the first wave of the second read (t2, t3:
 * the read ahead, t2-t9) to be in flight.
 */
async function inSecondRead(gated: GatedGateway): Promise<void> {
  while (gated.sent.length < 2) {
    gated.openAll();
    await flush(1);
  }
  while (gated.inFlight < 2) await flush(1);
}

/** Lets the gated sends go one wave at a time until `sent` of them went. */
async function openUntil(gated: GatedGateway, sent: number): Promise<void> {
  for (let i = 0; i < 200 && gated.sent.length < sent; i++) {
    gated.openAll();
    await flush(1);
  }
}

describe("an outbox backlog read ahead", () => {
  it("40 heads at concurrency 4: due reads of 4, 16, 16 and 16 (the last finds 4): 4 reads, not 11; each piece once", async () => {
    const mock = new MockGateway({ name: "mock" });
    const { store, sender } = setUp([mock], { concurrency: 4, idlePollMs: 600_000 });
    await store.outbox.enqueue(heads("mock", 40));
    const limits = dueLimits(store);
    sender.start();
    await sender.settled();
    expect(limits).toEqual([4, 4 * READ_AHEAD, 4 * READ_AHEAD, 4 * READ_AHEAD]);
    expect(mock.sent.map((s) => s.thread).sort()).toEqual(
      heads("mock", 40)
        .map((p) => p.thread)
        .sort(),
    );
  });

  it("never has more sends in flight than its concurrency over a read of several waves", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { sender, store } = setUp([gated], { concurrency: 2, idlePollMs: 600_000 });
    await store.outbox.enqueue(heads("mock", 12));
    sender.start();
    await openUntil(gated, 12);
    await sender.settled();
    expect(gated.sent).toHaveLength(12);
    expect(gated.mostInFlight).toBe(2);
  });

  it("a gateway held during a pass: the later waves send none of its pieces, left pending and uncounted", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { sender, store } = setUp([gated], { concurrency: 2, idlePollMs: 600_000 });
    await store.outbox.enqueue(heads("mock", 12));
    sender.start();
    await inSecondRead(gated);
    sender.hold("mock");
    gated.openAll();
    await sender.settled();
    expect(gated.sent.map((s) => s.thread)).toEqual(["t0", "t1", "t2", "t3"]);
    for (const p of heads("mock", 8, 4))
      expect(await statuses(store, "mock", p.thread)).toEqual([["pending", 0]]);
  });

  it("a share given up during a pass: the later waves send none of the pieces no longer its", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { sender, store } = setUp([gated], { concurrency: 2, idlePollMs: 600_000 });
    await store.outbox.enqueue(heads("mock", 12));
    sender.start();
    await inSecondRead(gated);
    // Only t0-t3 are its own from now on: t4 and on wait for whoever sends them.
    sender.restrict((row) => ["t0", "t1", "t2", "t3"].includes(row.thread));
    await openUntil(gated, 12);
    await sender.drained();
    expect(gated.sent.map((s) => s.thread)).toEqual(["t0", "t1", "t2", "t3"]);
    for (const p of heads("mock", 8, 4))
      expect(await statuses(store, "mock", p.thread)).toEqual([["pending", 0]]);
  });

  it("a sender stopped during a pass sends no later wave: the rest stays pending for its next start", async () => {
    const gated = new GatedGateway({ name: "mock" });
    const { sender, store } = setUp([gated], { concurrency: 2, idlePollMs: 600_000 });
    await store.outbox.enqueue(heads("mock", 12));
    sender.start();
    await inSecondRead(gated);
    const stopped = sender.stop();
    gated.openAll();
    await stopped;
    expect(gated.sent.map((s) => s.thread)).toEqual(["t0", "t1", "t2", "t3"]);
    for (const p of heads("mock", 8, 4))
      expect(await statuses(store, "mock", p.thread)).toEqual([["pending", 0]]);
  });
});
