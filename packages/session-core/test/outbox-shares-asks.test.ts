// When a leader's backlog asks for help again (outbox-shares.ts #backlog, #share, #gained): a new
// leader asks at its first backlog even before it holds every partition; while its partitions are
// shared it does not ask again until it holds all four again (or stopped leading since); an earlier
// ask's timers do not end or share for a later one. A leader's empty passes give nothing back, even
// one that helped before it led.
import { describe, expect, it, vi } from "vitest";
import { fakeClockEachTest, helpAsks as asks, sharesRig } from "./outbox-shares-fixture.js";

const rig = () => sharesRig({ helperIdleMs: 1_000 });

/** A leader holding all four that shared 1-3 with a helper (its line-up over). */
async function shared() {
  const r = rig();
  r.shares.lead();
  r.grantAll();
  r.backlog();
  r.shares.helping();
  await vi.advanceTimersByTimeAsync(250);
  expect(r.left.sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
  return r;
}

fakeClockEachTest();

describe("a leader's asks for help", () => {
  it("a new leader holding one partition of four asks at its first backlog", async () => {
    const { shares, grant, backlog, published } = rig();
    shares.lead();
    grant(0);
    backlog();
    expect(asks(published)).toBe(1);
    await shares.stop();
  });

  it("while shared, none again: not after the ask's 2.2 s, nor with some partitions back; with all four back, it asks again", async () => {
    const { shares, grant, backlog, published } = await shared();
    await vi.advanceTimersByTimeAsync(2_100); // queued again at 2.25 s, not given yet
    backlog();
    grant(1);
    backlog();
    expect(asks(published)).toBe(1);
    grant(2);
    grant(3);
    backlog();
    expect(asks(published)).toBe(2);
    await shares.stop();
  });

  it("a leader that stopped leading while shared asks at its first backlog when it leads again", async () => {
    const { shares, grant, backlog, published } = await shared();
    await shares.unlead();
    shares.lead();
    grant(0);
    backlog();
    expect(asks(published)).toBe(2);
    await shares.stop();
  });

  it("an earlier ask's end (2.2 s) does not end a later one: its helper's answer still shares", async () => {
    const { shares, grantAll, backlog, left } = rig();
    shares.lead();
    grantAll();
    backlog();
    await vi.advanceTimersByTimeAsync(1_000);
    await shares.unlead();
    shares.lead();
    grantAll();
    backlog();
    await vi.advanceTimersByTimeAsync(1_300); // the first ask's 2.2 s are over, not the second's
    const before = left.length;
    shares.helping();
    await vi.advanceTimersByTimeAsync(0);
    expect(left.slice(before).sort()).toEqual(["outbox:1", "outbox:2", "outbox:3"]);
    await shares.stop();
  });

  it("an earlier ask answered does not share for a later one nobody answered", async () => {
    const { shares, grantAll, backlog, left } = rig();
    shares.lead();
    grantAll();
    backlog();
    shares.helping(); // answered during the line-up
    await vi.advanceTimersByTimeAsync(100);
    await shares.unlead();
    shares.lead();
    grantAll();
    backlog();
    const before = left.length;
    await vi.advanceTimersByTimeAsync(150); // the first ask's line-up ends
    expect(left.slice(before)).toEqual([]);
    await shares.stop();
  });
});

describe("a leader's empty passes", () => {
  it("give nothing back, also when it helped before it led", async () => {
    const { shares, grantAll, pass, left } = rig();
    shares.help();
    shares.lead();
    grantAll();
    pass(0);
    await vi.advanceTimersByTimeAsync(1_000);
    pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(left).toEqual([]);
    await shares.stop();

    const leader = rig();
    leader.shares.lead();
    leader.grantAll();
    leader.pass(0);
    await vi.advanceTimersByTimeAsync(1_000);
    leader.pass(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(leader.left).toEqual([]);
    await leader.shares.stop();
  });
});
