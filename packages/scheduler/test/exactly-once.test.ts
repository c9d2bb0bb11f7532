import { afterEach, describe, expect, it } from "vitest";
import { dedupKeyOf } from "../src/index.js";
import { every, MINUTE, type Rig, rig } from "./rig.js";

const open: Rig[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function newRig(o?: Parameters<typeof rig>[0]): Promise<Rig> {
  const r = await rig(o);
  open.push(r);
  return r;
}

describe("a schedule every minute", () => {
  it("runs one turn and sends one reply per tick, however often and by how many instances it is looked at", async () => {
    const r = await newRig();
    const a = r.runner([every("digest")], { instance: "a" });
    const b = r.runner([every("digest")], { instance: "b" });
    await a.start();
    await b.start();
    for (let minute = 0; minute < 5; minute++) {
      r.clock.now += MINUTE;
      await Promise.all([a.pass(), b.pass(), a.pass(), b.pass()]);
    }
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toEqual(Array(5).fill("Here is your digest."));
    const inbox = await r.db.inbox.unfinished();
    expect(inbox).toEqual([]);
    await Promise.all([a.pass(), b.pass()]);
    const last = await r.db.scheduleTicks.last("digest");
    expect(last).toMatchObject({ outcome: "delivered", tickAt: Date.UTC(2026, 11, 1, 9, 5) });
  });

  it("hands the target's platform keys to the gateway as the run's meta.scheduled, whatever adapter declared them", async () => {
    const r = await newRig();
    const to = { gateway: "telegram", thread: "chat-1", subject: "Digest", urgent: true };
    const a = r.runner([every("digest", MINUTE, { to })]);
    await a.start();
    r.clock.now += MINUTE;
    await a.pass();
    await r.session.idle();
    expect(r.gateway.sent.map((m) => m.meta?.scheduled)).toEqual([{ subject: "Digest", urgent: true }]);
  });

  it("a tick claimed by an instance that died before recording it is recorded by the next pass, once", async () => {
    const r = await newRig();
    const tickAt = Date.UTC(2026, 11, 1, 9, 1);
    // What a crash between the claim and the inbox record leaves behind.
    expect(await r.db.scheduleTicks.claim({ schedule: "digest", tickAt, instance: "dead" })).toBe(true);
    r.clock.now = tickAt + 20_000;
    const a = r.runner([every("digest")]);
    await a.start();
    await a.pass();
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toEqual(["Here is your digest."]);
    expect(await r.db.scheduleTicks.inboxIdOf("telegram", dedupKeyOf("digest", tickAt))).toBeTypeOf("number");
  });

  it("a tick recorded in the inbox whose claim row was not updated (a crash between the two) is not run again", async () => {
    const r = await newRig();
    const tickAt = Date.UTC(2026, 11, 1, 9, 1);
    await r.db.scheduleTicks.claim({ schedule: "digest", tickAt, instance: "dead" });
    await r.session.deliver(
      {
        gateway: "telegram",
        dedupKey: dedupKeyOf("digest", tickAt),
        thread: "chat-1",
        text: "tick of digest",
        author: { id: "schedule:digest" },
      },
      { operator: true },
    );
    await r.session.idle();
    r.clock.now = tickAt + 20_000;
    const a = r.runner([every("digest")]);
    await a.start();
    await r.session.idle();
    await a.pass();
    expect(r.gateway.textsTo("chat-1")).toHaveLength(1);
    expect(await r.db.scheduleTicks.last("digest")).toMatchObject({ outcome: "delivered" });
  });
});

describe("catchUp", () => {
  async function downFiveMinutes(catchUp: "none" | "last") {
    const r = await newRig();
    const first = r.runner([every("digest", MINUTE, { catchUp })]);
    await first.start();
    r.clock.now += MINUTE;
    await first.pass();
    await r.session.idle();
    await first.stop();
    // Down for five minutes and a half: five ticks missed.
    r.clock.now += 5.5 * MINUTE;
    const second = r.runner([every("digest", MINUTE, { catchUp })]);
    await second.start();
    await r.session.idle();
    return r;
  }

  it("none: ticks missed while the service was down are skipped", async () => {
    const r = await downFiveMinutes("none");
    expect(r.gateway.textsTo("chat-1")).toHaveLength(1);
  });

  it("last: the newest missed tick runs once at start, the older ones not", async () => {
    const r = await downFiveMinutes("last");
    expect(r.gateway.textsTo("chat-1")).toHaveLength(2);
    expect(await r.db.scheduleTicks.last("digest")).toMatchObject({ tickAt: Date.UTC(2026, 11, 1, 9, 7) });
  });
});

describe("pause and visible failures", () => {
  it("a paused schedule's ticks pass unclaimed; after resume the next tick runs", async () => {
    const r = await newRig();
    const a = r.runner([every("digest")]);
    await a.start();
    await r.db.scheduleTicks.setPaused("digest", true);
    r.clock.now += MINUTE;
    await a.pass();
    await r.db.scheduleTicks.setPaused("digest", false);
    r.clock.now += MINUTE;
    await a.pass();
    await r.session.idle();
    expect(r.gateway.textsTo("chat-1")).toHaveLength(1);
    expect(await r.db.scheduleTicks.last("digest")).toMatchObject({ tickAt: Date.UTC(2026, 11, 1, 9, 2) });
  });

  it("a tick claimed before the pause landed is finished (run and delivered); later ticks wait for resume", async () => {
    const r = await newRig();
    const tickAt = Date.UTC(2026, 11, 1, 9, 1);
    // Claimed by an instance that died before recording it, then the operator paused the schedule.
    await r.db.scheduleTicks.claim({ schedule: "digest", tickAt, instance: "dead" });
    await r.db.scheduleTicks.setPaused("digest", true);
    r.clock.now = tickAt + 20_000;
    const a = r.runner([every("digest")]);
    await a.start();
    r.clock.now += MINUTE;
    await a.pass();
    await r.session.idle();
    await a.pass();
    expect(r.gateway.textsTo("chat-1")).toEqual(["Here is your digest."]);
    expect(await r.db.scheduleTicks.recent("digest")).toEqual([
      expect.objectContaining({ tickAt, outcome: "delivered" }),
    ]);
  });

  it("a reply the platform refuses is a dead tick: logged as an error, counted, and kept as the last error", async () => {
    const r = await newRig();
    const outcomes: string[] = [];
    const a = r.runner([every("digest")], { observer: { onOutcome: (_s, o) => outcomes.push(o) } });
    await a.start();
    r.gateway.failures.push({ status: 403 });
    r.clock.now += MINUTE;
    await a.pass();
    await r.session.idle();
    await a.pass();
    expect(outcomes).toEqual(["dead"]);
    expect(await r.db.scheduleTicks.lastError("digest")).toMatchObject({
      outcome: "dead",
      error: expect.stringContaining("403"),
    });
    expect(r.logs.find((l) => l.level === "error")?.msg).toMatch(
      /tick dead: its reply did not reach telegram/,
    );
  });

  it("a schedule whose gateway is not running fails visibly instead of waiting", async () => {
    const r = await newRig();
    const outcomes: string[] = [];
    const a = r.runner([every("digest", MINUTE, { to: { gateway: "slack", thread: "C1" } })], {
      observer: { onOutcome: (_s, o) => outcomes.push(o) },
    });
    await a.start();
    r.clock.now += MINUTE;
    await a.pass();
    expect(outcomes).toEqual(["failed"]);
    expect(await r.db.scheduleTicks.lastError("digest")).toMatchObject({
      error: 'gateway "slack" is not running',
    });
  });
});
