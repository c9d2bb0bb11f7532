// What the connection tells the session besides messages, and the gateway commands it answers
// (https://discord.com/developers/docs/events/gateway): a heartbeat ACK is a platform call that
// worked, any dispatch is the platform heard from (a deaf connection has ACKs and no dispatches),
// a READY or RESUMED after the first is a reconnect; a Heartbeat request (op 1) is answered at once,
// an Invalid Session with d:true resumes.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY, type StoredSession } from "../src/connection.js";
import { discordHarness } from "./harness.js";
import { nextConnection, type Rigged, say, sessionStored, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

interface Signals {
  heard: number;
  callsWorked: number;
  reconnected: number;
}

/** A rig whose gateway's context counts the signals it is given. */
async function signalledRig(
  overrides?: Parameters<typeof discordHarness>[0],
  fakeOptions?: Parameters<typeof discordHarness>[1],
): Promise<Rigged & { signals: Signals }> {
  const signals: Signals = { heard: 0, callsWorked: 0, reconnected: 0 };
  // Calm clocks unless a test sets its own (see startCalmRig).
  const h = await discordHarness(
    { watchdogMs: 60_000, ...overrides },
    { heartbeatIntervalMs: 2_000, ...fakeOptions },
  );
  const build = h.gateway;
  h.gateway = async () => {
    const gw = await build();
    const start = gw.start.bind(gw);
    gw.start = (ctx: GatewayContext) =>
      start({
        ...ctx,
        heard: () => {
          signals.heard += 1;
        },
        platformCallSucceeded: () => {
          signals.callsWorked += 1;
        },
        reconnected: () => {
          signals.reconnected += 1;
        },
      });
    return gw;
  };
  const rig = new ContractRig(h);
  await rig.start();
  await sessionStored(h, rig.store);
  return { h, rig, signals };
}

describe("discord connection: signals to the session", () => {
  it("a heartbeat ACK counts as a platform call that worked, and any dispatch (a typing event too) as heard", async () => {
    const x = await signalledRig();
    r = x;
    // READY is a dispatch (the fake's session exists before the gateway reads it).
    await eventually(() => x.signals.heard >= 1, "READY heard");
    const heardAtReady = x.signals.heard;
    await eventually(() => x.signals.callsWorked >= 1, "an ACKed heartbeat");
    x.h.fake.sessions.dispatch("TYPING_START", { channel_id: "800000000000000001", user_id: "7001" });
    await eventually(() => x.signals.heard > heardAtReady, "the typing event heard");
  });

  it("the first READY is no reconnect, nor is any other event; a RESUMED after a dropped socket and a READY after a new session each are", async () => {
    const x = await signalledRig();
    r = x;
    await eventually(() => x.signals.callsWorked >= 1, "an ACKed heartbeat");
    expect(x.signals.reconnected).toBe(0);
    x.h.fake.sessions.drop();
    const resumed = await nextConnection(x, 1);
    await eventually(() => resumed.resumedSession !== undefined, "the resume");
    await eventually(() => x.signals.reconnected === 1, "one reconnect");
    // Any other event is no reconnect: heard and reconnected are signalled in the same step.
    const heard = x.signals.heard;
    x.h.fake.sessions.dispatch("TYPING_START", { channel_id: "800000000000000001", user_id: "7001" });
    await eventually(() => x.signals.heard > heard, "the typing event heard");
    expect(x.signals.reconnected).toBe(1);
    x.h.fake.sessions.closeWith(4009);
    const fresh = await nextConnection(x, 2);
    await eventually(() => fresh.identified && fresh.resumedSession === undefined, "a new session");
    await eventually(() => x.signals.reconnected === 2, "a second reconnect");
  });
});

describe("discord connection: gateway commands", () => {
  it("a Heartbeat request (op 1) is answered at once with the last recorded sequence, not at the next interval", async () => {
    // Hello announces a minute: the first scheduled beat is 30 s away (jitter 0.5), far past the bound.
    r = await signalledRig({ watchdogMs: 120_000 }, { heartbeatIntervalMs: 60_000 });
    const x = r;
    const conn = x.h.fake.connections[0] as NonNullable<(typeof x.h.fake.connections)[0]>;
    expect(conn.heartbeats).toBe(0);
    say(x, "before the request hb1");
    // At least 2: the reply's echo (sequence 3) may be recorded before this looks.
    await eventually(
      async () =>
        ((await x.rig.store.gatewayState.get<StoredSession>("discord", SESSION_KEY))?.seq ?? 0) >= 2,
      "the message recorded",
    );
    let carried = false;
    void x.h.fake.sessions.acked(2).then(() => {
      carried = true;
    });
    x.h.fake.sessions.send({ op: 1 });
    await eventually(() => conn.heartbeats >= 1, "the requested heartbeat", 5_000);
    // The fake counts a sequence acknowledged once a heartbeat carries it.
    await eventually(() => carried, "the heartbeat carrying sequence 2");
    expect(conn.heartbeats).toBe(1);
  });

  it("an Invalid Session with d:true resumes the same session on a new connection", async () => {
    r = await signalledRig();
    const x = r;
    const id = x.h.fake.sessions.current?.id;
    x.h.fake.sessions.send({ op: 9, d: true });
    const next = await nextConnection(x, 1);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    expect(next.path).toBe("/resume");
    expect(x.h.logs.some((l) => l.msg === "invalid session (resumable); resuming")).toBe(true);
  });
});
