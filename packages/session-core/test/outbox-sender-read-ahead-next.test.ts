// A pass after one that found a batch or more reads READ_AHEAD batches at its first read
// (outbox-sender.ts): under steady load each pass's first read of one batch came back full and a
// second read followed. A pass after a quiet one still reads one batch first.
import { describe, expect, it, vi } from "vitest";
import { WAKE_SPACING_MS } from "../src/outbox-options.js";
import { READ_AHEAD } from "../src/outbox-waves.js";
import { MockGateway } from "../src/testing/index.js";
import { dueLimits, heads, useFakeClock, useSender } from "./outbox-harness.js";

const setUp = useSender();
useFakeClock();

/** A sender at concurrency 4 whose due reads' limits are recorded. */
function recorded() {
  const mock = new MockGateway({ name: "mock" });
  const { store, sender } = setUp([mock], { concurrency: 4, idlePollMs: 600_000 });
  return { mock, store, sender, limits: dueLimits(store) };
}

/** Queues `pieces`, wakes the sender and waits for its pass (past the wake spacing). */
async function queueAndPass(s: ReturnType<typeof recorded>, pieces: ReturnType<typeof heads>): Promise<void> {
  await s.store.outbox.enqueue(pieces);
  s.sender.wake();
  await vi.advanceTimersByTimeAsync(WAKE_SPACING_MS);
  await s.sender.settled();
}

describe("the first due read of a pass", () => {
  it("asks READ_AHEAD batches after a pass that found a batch or more: 5 more heads in one read, not two", async () => {
    const s = recorded();
    await s.store.outbox.enqueue(heads("mock", 10));
    s.sender.start();
    await s.sender.settled();
    expect(s.limits).toEqual([4, 4 * READ_AHEAD]);
    await queueAndPass(s, heads("mock", 5, 10));
    expect(s.limits).toEqual([4, 4 * READ_AHEAD, 4 * READ_AHEAD]);
    expect(s.mock.sent.map((m) => m.thread).sort()).toEqual(
      heads("mock", 15)
        .map((p) => p.thread)
        .sort(),
    );
  });

  it("asks one batch after a pass that found less than one", async () => {
    const s = recorded();
    await s.store.outbox.enqueue(heads("mock", 3));
    s.sender.start();
    await s.sender.settled();
    expect(s.limits).toEqual([4]);
    await queueAndPass(s, heads("mock", 6, 3));
    expect(s.limits).toEqual([4, 4, 4 * READ_AHEAD]);
    expect(s.mock.sent).toHaveLength(9);
  });
});
