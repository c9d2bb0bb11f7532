// Spec §3, connection moves of the community-chat gateway: one test per row of the table, plus
// the fallbacks around it. Each test bounds its waits.
import type { GatewayContext, GatewayScheduler } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { captureLogs, eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createGateway, DEFAULT_WATCHDOG_MS } from "../src/gateway.js";
import { FATAL_CLOSE, SESSION_KEY, type StoredSession } from "../src/connection.js";
import { DISCORD_HEARTBEAT_INTERVAL_MS, discordHarness } from "./harness.js";
import { expectOnceEach, nextConnection, type Rigged, say, startCalmRig, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

/** The scheduler, recording each heartbeat registration's first delay and each beat's next delay. */
function recordingHeartbeats(
  scheduler: GatewayScheduler,
  asked: { first?: number; next?: number | null }[],
): GatewayScheduler {
  return {
    every: (...args) => scheduler.every(...args),
    cancel: (name) => scheduler.cancel(name),
    list: () => scheduler.list(),
    schedule: (name, firstDelayMs, task) => {
      if (name !== "heartbeat") return scheduler.schedule(name, firstDelayMs, task);
      asked.push({ first: firstDelayMs });
      scheduler.schedule(name, firstDelayMs, async (signal) => {
        const next = await task(signal);
        asked.push({ next });
        return next;
      });
    },
  };
}

const session = (x: Rigged) => x.rig.store.gatewayState.get<StoredSession>("discord", SESSION_KEY);

describe("discord connection table (spec §3)", () => {
  it("row 1: connected -> heartbeating on Hello (op 10): the first beat after interval × jitter, then one per interval, re-registered on every new Hello", async () => {
    // The delays the gateway asks its scheduler for (no wall-clock gaps: a loaded machine delays
    // timers, never the delays asked for). jitter() is 0.5 in the harness.
    // Hello's interval 1 s and a calm watchdog: at the scaled 206 ms a thread held off the CPU past
    // one interval read the ACK after the next beat was due (a zombie reconnect, a new connection),
    // and the first connection never got its three beats on a loaded machine.
    const interval = 1_000;
    const asked: { first?: number; next?: number | null }[] = [];
    const h = await discordHarness({ watchdogMs: 60_000 }, { heartbeatIntervalMs: interval });
    const build = h.gateway;
    h.gateway = async () => {
      const gw = await build();
      const start = gw.start.bind(gw);
      gw.start = (ctx) => start({ ...ctx, scheduler: recordingHeartbeats(ctx.scheduler, asked) });
      return gw;
    };
    const rig = new ContractRig(h);
    await rig.start();
    r = { h, rig };
    const x = r;
    await eventually(() => x.h.fake.sessions.current !== undefined, "READY");
    const first = x.h.fake.connections[0] as NonNullable<(typeof x.h.fake.connections)[0]>;
    await eventually(() => first.heartbeats >= 3, "three beats", 15_000);
    expect(asked[0]?.first).toBe(Math.floor(interval * 0.5));
    expect(asked.filter((a) => "next" in a).slice(0, 3)).toEqual([
      { next: interval },
      { next: interval },
      { next: interval },
    ]);
    // A new Hello with another interval replaces the registration: the old socket beats no more.
    x.h.fake.sessions.heartbeatIntervalMs = 2 * interval;
    x.h.fake.sessions.send({ op: 7 });
    const second = await nextConnection(x, 1);
    await eventually(() => second.heartbeats >= 2, "two beats on the new connection", 15_000);
    const before = first.heartbeats;
    const registrations = asked.filter((a) => "first" in a);
    expect(registrations.at(-1)).toEqual({ first: Math.floor(2 * interval * 0.5) });
    expect(asked.at(-1)).toEqual({ next: 2 * interval });
    expect(first.heartbeats).toBe(before);
  });

  it("row 2: heartbeating -> reconnecting when the previous heartbeat was not acknowledged (op 11): a proactive reconnect that resumes", async () => {
    // A calm watchdog, so only the missing ACK may cause this reconnect: in a starved CI run the
    // resume came and the zombie line did not (the default watchdog can fire first).
    r = await startRig({ watchdogMs: 60_000 });
    const id = r.h.fake.sessions.current?.id;
    r.h.fake.sessions.withholdAcks(1);
    const next = await nextConnection(r, 1);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    expect(r.h.logs.some((l) => /not acknowledged \(zombie/.test(l.msg))).toBe(true);
    say(r, "after zombie z1");
    await expectOnceEach(r, ["z1"]);
  });

  it("row 3a: connected -> reconnecting on Reconnect (op 7) with a prior session: Resume (op 6) with the last sequence on the resume URL", async () => {
    r = await startCalmRig();
    say(r, "before reconnect r1");
    await expectOnceEach(r, ["r1"]);
    const stored = await session(r);
    r.h.fake.sessions.send({ op: 7 });
    const next = await nextConnection(r, 1);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.path).toBe("/resume");
    expect(next.resumedSession).toBe(stored?.id);
    expect(next.identified).toBe(true);
    say(r, "after reconnect r2");
    await expectOnceEach(r, ["r1", "r2"]);
  });

  it("row 3b: connected -> reconnecting on a resumable close code (4000): resumes, and messages sent while down are replayed once", async () => {
    r = await startCalmRig();
    const id = r.h.fake.sessions.current?.id;
    r.h.fake.sessions.closeWith(4000, "Unknown error.");
    say(r, "while down c1"); // logged in the session, replayed on Resume
    const next = await nextConnection(r, 1);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    await expectOnceEach(r, ["c1"]);
  });

  it("row 4a: connected -> reconnecting on Invalid Session (op 9) d:false: a fresh Identify (op 2)", async () => {
    r = await startCalmRig();
    const old = r.h.fake.sessions.current?.id;
    r.h.fake.sessions.send({ op: 9, d: false });
    const next = await nextConnection(r, 1);
    await eventually(() => next.identified, "the identify");
    expect(next.resumedSession).toBeUndefined();
    expect(next.path).toBe("/gateway");
    await eventually(() => r?.h.fake.sessions.current?.id !== old, "a new session");
    await eventually(
      async () => (await session(r as Rigged))?.id === r?.h.fake.sessions.current?.id,
      "the stored session",
    );
    say(r, "new session i1");
    await expectOnceEach(r, ["i1"]);
  });

  for (const code of [4007, 4009]) {
    it(`row 4b: connected -> reconnecting on close ${code}: a fresh Identify`, async () => {
      r = await startCalmRig();
      const old = r.h.fake.sessions.current?.id;
      r.h.fake.sessions.closeWith(code);
      const next = await nextConnection(r, 1);
      await eventually(() => next.identified, "the identify");
      expect(next.resumedSession).toBeUndefined();
      expect(r.h.fake.sessions.current?.id).not.toBe(old);
    });
  }

  it("row 5: connected -> stopped on close 4004 (Authentication failed): credentials, the gateway stopped with a reason naming the token variable", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.closeWith(4004, "Authentication failed.");
    await eventually(() => r?.rig.session.status().discord?.state === "stopped", "stopped");
    await new Promise((res) => setTimeout(res, 300));
    expect(r.h.fake.connections).toHaveLength(1);
    expect(r.rig.session.status().discord?.reason).toBe(
      "credentials rejected by discord: check DISCORD_TOKEN (gateway closed with 4004: Authentication failed.)",
    );
  });

  for (const code of [4010, 4011, 4012, 4013, 4014]) {
    it(`row 5: connected -> stopped on close ${code}: no retry, and a log line naming the cause`, async () => {
      r = await startCalmRig();
      r.h.fake.sessions.closeWith(code);
      await eventually(() => r?.h.built.at(-1)?.halted === true, "halted");
      await new Promise((res) => setTimeout(res, 300));
      expect(r.h.fake.connections).toHaveLength(1);
      const line = r.h.logs.find((l) => l.level === 50 && l.msg.includes(String(code)));
      expect(line?.msg).toContain(FATAL_CLOSE[code]);
      if (code === 4014) expect(line?.msg).toMatch(/Message Content Intent/);
    });
  }
});

describe("discord heartbeats at the real interval (clocks scaled, ratios kept)", () => {
  it("a quiet bot keeps ONE connection across several heartbeat intervals (every beat ACKed)", async () => {
    // Discord's 41 250 ms and the adapter's default 30 000 ms watchdog divided by the same factor,
    // so the ratio that made a quiet bot reconnect every interval is the real one. 1/30, not the
    // harness's 1/200: the silence limit's margin over an interval (the watchdog, 150 ms at 1/200)
    // is how long a loaded machine may keep the thread from reading an ACK; 1 s at 1/30.
    const scale = 1 / 30;
    const interval = DISCORD_HEARTBEAT_INTERVAL_MS * scale;
    r = await startRig({ watchdogMs: DEFAULT_WATCHDOG_MS * scale }, { heartbeatIntervalMs: interval });
    expect(DEFAULT_WATCHDOG_MS).toBeLessThan(DISCORD_HEARTBEAT_INTERVAL_MS);
    const first = r.h.fake.connections[0] as NonNullable<(typeof r.h.fake.connections)[0]>;
    await eventually(() => first.heartbeats >= 4, "four heartbeats", 4 * interval + 5_000);
    expect(r.h.fake.connections).toHaveLength(1);
    expect(first.closedAt).toBeUndefined();
    expect(r.h.logs.some((l) => /reconnect/i.test(l.msg))).toBe(false);
  });

  it("a heartbeat that is not ACKed before the next one is due still replaces the zombie and resumes", async () => {
    // The harness's Hello interval (206 ms) and a watchdog that cannot trip: only the missing ACK
    // can end this connection, however late a loaded machine runs the timers.
    r = await startRig({ watchdogMs: 60_000 });
    const id = r.h.fake.sessions.current?.id;
    r.h.fake.sessions.withholdAcks();
    const next = await nextConnection(r, 1);
    r.h.fake.sessions.withholdAcks(0);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    expect(r.h.logs.some((l) => /not acknowledged \(zombie/.test(l.msg))).toBe(true);
  });
});

describe("discord connection fallbacks", () => {
  it("an unset or empty token variable fails the start with MissingConfigError naming it", async () => {
    const { logger } = captureLogs();
    for (const env of [{}, { DISCORD_TOKEN: "" }]) {
      const gateway = createGateway({ name: "discord", botTokenEnvVar: "DISCORD_TOKEN", env });
      // Only what start reads before it needs the token.
      const ctx = { env: {}, logger, state: new Map() } as unknown as GatewayContext;
      await expect(gateway.start(ctx)).rejects.toMatchObject({
        code: "missing_config",
        envVar: "DISCORD_TOKEN",
        message: expect.stringContaining(
          "discord: DISCORD_TOKEN is not set: set it to the bot token (Developer Portal, Bot page, Reset Token)",
        ),
      });
    }
  });

  it("a connection that never says Hello is replaced after watchdogMs, and the next one resumes", async () => {
    // Without Hello the limit is watchdogMs alone (300 ms); with Hello's 60 s interval the connections
    // that said it have a minute, so only the silent one is replaced (with the scaled clocks, 356 ms
    // and a beat every 206 ms, a loaded run replaced the others too).
    r = await startRig({ watchdogMs: 300 }, { heartbeatIntervalMs: 60_000 });
    const id = r.h.fake.sessions.current?.id;
    r.h.fake.sessions.withholdHello(1);
    r.h.fake.sessions.send({ op: 7 });
    const silent = await nextConnection(r, 1);
    const next = await nextConnection(r, 2);
    await eventually(() => next.resumedSession !== undefined, "the resume");
    expect(next.resumedSession).toBe(id);
    expect(silent.heartbeats).toBe(0);
    expect(r.h.logs.some((l) => /no gateway frame within the watchdog period/.test(l.msg))).toBe(true);
  });

  it("a wrong token (401 on GET /gateway/bot) stops without retrying, naming the token", async () => {
    r = await startRig(
      { env: { DISCORD_TOKEN: "wrong" }, watchdogMs: 60_000 },
      { heartbeatIntervalMs: 2_000 },
      false,
    );
    await eventually(() => r?.h.built.at(-1)?.halted === true, "halted");
    await new Promise((res) => setTimeout(res, 200));
    expect(r.h.fake.calls.filter((c) => c.path === "/gateway/bot")).toHaveLength(1);
    expect(r.h.fake.calls.every((c) => c.auth === "Bot wrong")).toBe(true);
    expect(r.rig.session.status().discord).toEqual({
      state: "stopped",
      reason: "credentials rejected by discord: check DISCORD_TOKEN (GET /gateway/bot answered 401)",
    });
  });

  it("intents the bot may not use get a real 4014 on Identify: stopped, with the message-content hint", async () => {
    r = await startRig(
      { watchdogMs: 60_000 },
      { disallowedIntents: 1 << 15, heartbeatIntervalMs: 2_000 },
      false,
    );
    await eventually(() => r?.h.built.at(-1)?.halted === true, "halted on 4014");
    expect(r.h.fake.connections.map((c) => c.closeCode)).toEqual([4014]);
    expect(r.h.logs.some((l) => /4014.*Message Content Intent/.test(l.msg))).toBe(true);
  });

  it("a resume that keeps failing falls back to a fresh Identify", async () => {
    r = await startCalmRig();
    const old = r.h.fake.sessions.current?.id;
    r.h.fake.sessions.dropResumes(3);
    r.h.fake.sessions.send({ op: 7 });
    await eventually(() => r?.h.fake.sessions.current?.id !== old, "a new session", 5_000);
    const resumes = r.h.fake.connections.filter((c) => c.path === "/resume");
    expect(resumes.length).toBeGreaterThanOrEqual(3);
    expect(r.h.logs.some((l) => /resuming keeps failing/.test(l.msg))).toBe(true);
    say(r, "after fallback f1");
    await expectOnceEach(r, ["f1"]);
  });

  it("a process restart resumes the stored session on the resume URL and replays what arrived meanwhile", async () => {
    r = await startCalmRig();
    say(r, "before restart p1");
    await expectOnceEach(r, ["p1"]);
    const id = r.h.fake.sessions.current?.id;
    await r.rig.stop();
    say(r, "during restart p2");
    const count = r.h.fake.connections.length;
    await r.rig.start();
    const resumed = await nextConnection(r, count);
    await eventually(() => resumed?.resumedSession !== undefined, "the resume");
    expect(resumed?.resumedSession).toBe(id);
    expect(resumed?.path).toBe("/resume");
    await expectOnceEach(r, ["p1", "p2"]);
  });
});
