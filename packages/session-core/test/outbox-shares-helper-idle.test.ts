// When a helping instance gives its outbox partitions back (outbox-shares.ts #passed): once its
// sender's passes have sent nothing for helperIdleMs in a row, counted from the first empty pass
// after the last one that sent something; it gives every role back and may help again later.
import { describe, expect, it, vi } from "vitest";
import { fakeClockEachTest, sharesRig } from "./outbox-shares-fixture.js";

const IDLE_MS = 5_000;

/** A helper holding partitions 1 and 2 (3 left at its share), its sender's pass reports by `pass`. */
function helper() {
  const { shares, sender, asked, grant, pass, left } = sharesRig({ helperIdleMs: IDLE_MS });
  shares.help();
  grant(1);
  grant(2);
  /** Roles given back since the helper took its share (outbox:3, left at once, not counted). */
  const givenBack = () => left.filter((r) => r !== "outbox:3");
  return { shares, sender, asked, pass, givenBack };
}

fakeClockEachTest();

describe("a helper's outbox partitions", () => {
  it("are kept while a pass sends something: the idle time counts from the first empty pass after it", async () => {
    const { shares, pass, givenBack } = helper();
    pass(0);
    await vi.advanceTimersByTimeAsync(3_000);
    pass(4);
    await vi.advanceTimersByTimeAsync(3_000);
    pass(0);
    await vi.advanceTimersByTimeAsync(3_000);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(givenBack()).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(givenBack().sort()).toEqual(["outbox:1", "outbox:2"]);
    await shares.stop();
  });

  it("are given back by an empty pass exactly helperIdleMs after the first empty one", async () => {
    const { shares, pass, givenBack } = helper();
    pass(0);
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(givenBack()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(givenBack().sort()).toEqual(["outbox:1", "outbox:2"]);
    await shares.stop();
  });

  it("once given back, the instance helps again at the next request", async () => {
    const { shares, asked, pass } = helper();
    pass(0);
    await vi.advanceTimersByTimeAsync(IDLE_MS);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    const before = asked.length;
    shares.help();
    expect(asked.slice(before).sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });
});
