// What the connection sends Discord and what it keeps between connections
// (https://discord.com/developers/docs/events/gateway): the URL's API version and encoding, the
// Identify's connection properties, the session stored as soon as it is READY (a restart before any
// message resumes it), a new connection after a zombie kept, its silence watchdog's period, and a
// heartbeat asked for before any session exists.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WATCHDOG_MS } from "../src/gateway.js";
import { DISCORD_HEARTBEAT_INTERVAL_MS, discordHarness, SCALE } from "./harness.js";
import {
  expectOnceEach,
  nextConnection,
  type Rigged,
  recordScheduling,
  say,
  startCalmRig,
  stopRig,
  storedSession,
} from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const stored = storedSession;

describe("discord connection: what it sends and keeps", () => {
  it("connects with API version 10 and JSON encoding and identifies with its connection properties; READY is not handed on as an event", async () => {
    r = await startCalmRig();
    const first = r.h.fake.connections[0];
    expect(first?.query).toEqual({ v: "10", encoding: "json" });
    expect(first?.identify).toEqual({
      intents: 37377,
      properties: { os: process.platform, browser: "agentsvc", device: "agentsvc" },
    });
    // READY is stored only after it would have been handed on: wait for that, then look.
    const x = r;
    await eventually(async () => (await stored(x)) !== undefined, "the stored session");
    expect(r.h.logs.some((l) => l.msg === "ignored" && l.t === "READY")).toBe(false);
  });

  it("stores the session as soon as it is READY: a restart before any message resumes it", async () => {
    r = await startCalmRig();
    const x = r;
    const id = x.h.fake.sessions.current?.id;
    await eventually(async () => (await stored(x))?.id === id, "the stored session");
    expect(await stored(x)).toMatchObject({ id, seq: 1 });
    await x.rig.stop();
    const count = x.h.fake.connections.length;
    await x.rig.start();
    const resumed = await nextConnection(x, count);
    await eventually(() => resumed.resumedSession !== undefined, "the resume");
    expect(resumed.resumedSession).toBe(id);
    // RESUMED is not an event either: a message after it is handled after RESUMED was.
    say(x, "after the resume rs1");
    await expectOnceEach(x, ["rs1"]);
    expect(x.h.logs.some((l) => l.msg === "ignored" && l.t === "RESUMED")).toBe(false);
  });

  it("after a zombie reconnect the new connection is kept: its first beat does not count the old missed ACK", async () => {
    r = await startCalmRig();
    const x = r;
    x.h.fake.sessions.withholdAcks(1);
    const next = await nextConnection(x, 1);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    await eventually(() => next.heartbeats >= 3, "three beats on the new connection");
    expect(x.h.fake.connections).toHaveLength(2);
    expect(next.closedAt).toBeUndefined();
    say(x, "kept k1");
    await expectOnceEach(x, ["k1"]);
  });

  it("checks for silence every third of watchdogMs", async () => {
    const h = await discordHarness();
    const scheduled = recordScheduling(h);
    const rig = new ContractRig(h);
    r = { h, rig };
    await rig.start();
    await eventually(() => h.fake.sessions.current !== undefined, "READY");
    // The harness's watchdogMs is DEFAULT_WATCHDOG_MS scaled (150 ms), under Hello's interval.
    expect(DEFAULT_WATCHDOG_MS * SCALE).toBeLessThan(DISCORD_HEARTBEAT_INTERVAL_MS * SCALE);
    expect(scheduled.filter((t) => t.kind === "every")).toEqual([
      { kind: "every", name: "watchdog", ms: Math.floor((DEFAULT_WATCHDOG_MS * SCALE) / 3) },
    ]);
  });

  it("a heartbeat Discord asks for (op 1) before any session exists is sent, without failing on the missing sequence", async () => {
    const h = await discordHarness({ watchdogMs: 60_000 }, { heartbeatIntervalMs: 2_000 });
    // No Hello: the connection opens but never identifies, so no session exists when op 1 comes.
    h.fake.sessions.withholdHello(1);
    r = { h, rig: new ContractRig(h) };
    await r.rig.start();
    await eventually(() => h.fake.connections.length === 1, "the connection");
    h.fake.sessions.send({ op: 1 });
    await eventually(() => h.fake.connections[0]?.heartbeats === 1, "the heartbeat");
    expect(h.logs.some((l) => l.msg === "unreadable gateway frame")).toBe(false);
  });
});
