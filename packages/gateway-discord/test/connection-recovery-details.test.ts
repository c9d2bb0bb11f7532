// The bookkeeping behind a recovery (https://discord.com/developers/docs/events/gateway#resuming):
// a dispatch the session could not record is resumed for, with the event named in the error; every
// READY starts the backoff over; only a RESUMED says the session resumed; a stale sequence never moves
// the recorded one back; a message recorded after its session was forgotten is no failure; a connection
// closed before it identified is no failed resume.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY, type StoredSession } from "../src/connection.js";
import { CHANNELS, discordHarness } from "./harness.js";
import {
  expectOnceEach,
  nextConnection,
  type Rigged,
  recordScheduling,
  say,
  startCalmRig,
  startRig,
  stopRig,
  logged,
  storedSession,
} from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const stored = storedSession;

describe("discord connection: recovery details", () => {
  it("a dispatch the session could not record is an error naming the event and its sequence, then a resume of the same session", async () => {
    r = await startCalmRig();
    const x = r;
    const id = x.h.fake.sessions.current?.id;
    let failures = 1;
    x.rig.deliverHook = async (inbound, next) => {
      if (failures > 0 && inbound.text.includes("nr1")) {
        failures -= 1;
        throw new Error("store unavailable");
      }
      return next(inbound);
    };
    say(x, "not recorded nr1");
    const line = await logged(x, "dispatch not recorded; resuming to get it again");
    expect(line).toMatchObject({ level: 50, t: "MESSAGE_CREATE", seq: x.h.fake.sessions.current?.seq });
    expect(line.err).toBeDefined();
    expect(await logged(x, "reconnecting")).toMatchObject({ why: "dispatch not recorded", resume: true });
    const next = await nextConnection(x, 1);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    await expectOnceEach(x, ["nr1"]);
  });

  it("each close that ends the session waits the backoff's first step again (a READY resets it)", async () => {
    const h = await discordHarness({ watchdogMs: 60_000 }, { heartbeatIntervalMs: 2_000 });
    const seen = recordScheduling(h);
    r = { h, rig: new ContractRig(h) };
    await r.rig.start();
    const x = r;
    await eventually(() => h.fake.sessions.current !== undefined, "READY");
    for (let i = 1; i <= 3; i++) {
      h.fake.sessions.closeWith(4009, "Session timed out.");
      const next = await nextConnection(x, i);
      await eventually(() => next.identified, `identify ${i}`);
      await eventually(
        () => h.logs.filter((l) => l.msg === "identified (READY)").length === i + 1,
        `READY ${i + 1}`,
      );
    }
    const waits = seen.filter((s) => s.name === "connect").map((s) => s.ms);
    // The first connect at once, then 20 ms (+ up to 20%) each time; without the reset 40-48, 80-96.
    expect(waits).toHaveLength(4);
    for (const wait of waits.slice(1)) expect(wait).toBeLessThanOrEqual(24);
  });

  it("a message is no resume: only a RESUMED logs 'session resumed'", async () => {
    r = await startCalmRig();
    say(r, "plain m1");
    await expectOnceEach(r, ["m1"]);
    expect(r.h.logs.some((l) => l.msg === "session resumed")).toBe(false);
  });

  it("a dispatch with a sequence below the recorded one leaves the recorded sequence where it was", async () => {
    r = await startRig({ watchdogMs: 60_000 }, { heartbeatIntervalMs: 200 });
    const x = r;
    say(x, "first s1");
    say(x, "second s2");
    await expectOnceEach(x, ["s1", "s2"]);
    const top = x.h.fake.sessions.current?.seq as number;
    await eventually(async () => (await stored(x))?.seq === top, "the top sequence recorded");
    x.h.fake.sessions.send({
      op: 0,
      s: 1,
      t: "TYPING_START",
      d: { channel_id: CHANNELS[0], user_id: x.h.userId("user-1"), timestamp: 1 },
    });
    // Two more heartbeats: the stale dispatch has long been through the chain.
    const conn = x.h.fake.connections.at(-1) as (typeof x.h.fake.connections)[number];
    const beats = conn.heartbeats;
    await eventually(() => conn.heartbeats >= beats + 2, "two more heartbeats");
    expect((await stored(x))?.seq).toBe(top);
  });

  it("a message recorded after its session was forgotten (Invalid Session d:false) is no failure and leaves the new session's sequence alone", async () => {
    r = await startCalmRig();
    const x = r;
    // The old session's sequence runs ahead of the new one's: its numbers must not leak into it.
    say(x, "before fb1");
    say(x, "before fb2");
    await expectOnceEach(x, ["fb1", "fb2"]);
    let entered = false;
    let release = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    x.rig.deliverHook = async (inbound, next) => {
      if (inbound.text.includes("fg1")) {
        entered = true;
        await held;
      }
      return next(inbound);
    };
    say(x, "held fg1");
    await eventually(() => entered, "the message in the session");
    const old = x.h.fake.sessions.current?.id;
    x.h.fake.sessions.send({ op: 9, d: false });
    await eventually(async () => (await stored(x)) === undefined, "the session forgotten");
    const second = await nextConnection(x, 1);
    await eventually(() => second.identified, "a fresh identify");
    // Every session stored from here on: the old one must not come back, even for a moment.
    const written: (string | undefined)[] = [];
    const state = x.rig.store.gatewayState;
    const set = state.set.bind(state);
    state.set = (gateway, key, value) => {
      if (key === SESSION_KEY) written.push((value as StoredSession | undefined)?.id);
      return set(gateway, key, value);
    };
    release();
    // Dispatches are recorded one after another: once fg2 is handled, fg1's recording is over.
    say(x, "after fg2");
    await expectOnceEach(x, ["fg1", "fg2"]);
    expect(x.h.logs.some((l) => l.msg === "dispatch not recorded; resuming to get it again")).toBe(false);
    expect(x.h.fake.connections).toHaveLength(2);
    const current = x.h.fake.sessions.current;
    expect(await stored(x)).toMatchObject({ id: current?.id, seq: current?.seq });
    expect(written.length).toBeGreaterThan(0);
    expect(written).not.toContain(old);
  });

  it("a connection closed before its Hello is no failed resume, at start and after a fresh session", async () => {
    const h = await discordHarness(
      { watchdogMs: 60_000, maxResumeFailures: 1 },
      { heartbeatIntervalMs: 2_000 },
    );
    h.fake.sessions.withholdHello(1);
    r = { h, rig: new ContractRig(h) };
    await r.rig.start();
    const x = r;
    await nextConnection(x, 0);
    h.fake.sessions.closeWith(4000, "Unknown error.");
    await eventually(() => h.fake.sessions.current !== undefined, "READY on the second connection");
    // The session is forgotten (Invalid Session d:false); the next connection closes before Hello too.
    h.fake.sessions.withholdHello(1);
    h.fake.sessions.send({ op: 9, d: false });
    await nextConnection(x, 2);
    h.fake.sessions.closeWith(4000, "Unknown error.");
    const fourth = await nextConnection(x, 3);
    await eventually(() => fourth.identified, "a fresh identify on the fourth connection");
    expect(h.logs.some((l) => l.msg === "resuming keeps failing; identifying afresh")).toBe(false);
  });
});
