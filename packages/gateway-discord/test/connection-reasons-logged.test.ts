// Why the connection moved, as an operator reads it: each reconnect's debug line names its cause and
// whether it resumes, and the warnings carry the figures behind them. Opcodes and close codes per
// https://discord.com/developers/docs/topics/opcodes-and-status-codes (Invalid Session d:true may be
// resumed, d:false may not: https://discord.com/developers/docs/events/gateway-events#invalid-session).
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY, type StoredSession } from "../src/connection.js";
import { nextConnection, type Rigged, startCalmRig, startRig, stopRig, logged } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

/** The first line with this message (and these fields), once it is logged. */

describe("discord connection: each reconnect names its cause", () => {
  it("Invalid Session d:true reconnects as 'invalid session', resuming", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.send({ op: 9, d: true });
    expect(await logged(r, "reconnecting")).toMatchObject({ why: "invalid session", resume: true });
  });

  it("Invalid Session d:false reconnects as 'invalid session', not resuming", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.send({ op: 9, d: false });
    expect(await logged(r, "reconnecting")).toMatchObject({ why: "invalid session", resume: false });
  });

  it("an unacknowledged heartbeat reconnects as 'no heartbeat ACK', resuming", async () => {
    r = await startRig({ watchdogMs: 60_000 }, { heartbeatIntervalMs: 200 });
    r.h.fake.sessions.withholdAcks();
    expect(await logged(r, "reconnecting")).toMatchObject({ why: "no heartbeat ACK", resume: true });
  });

  it("deafAfter reconnects as 'deafAfter', resuming", async () => {
    // Calm heartbeats: at 200 ms a thread held off the CPU that long may miss an ACK, and the first
    // reconnect logged would be the zombie's (the deaf-after file's test failed that way).
    r = await startCalmRig({ deafAfter: "1s" });
    expect(await logged(r, "reconnecting")).toMatchObject({ why: "deafAfter", resume: true });
  });

  it("a connection without Hello is left as 'watchdog' after a warning with the silence and its limit", async () => {
    r = await startRig({ watchdogMs: 300 }, { heartbeatIntervalMs: 2_000 }, false);
    r.h.fake.sessions.withholdHello(1);
    const warning = await logged(r, "no gateway frame within the watchdog period; reconnecting");
    // No Hello yet: the limit is watchdogMs alone, and the silence exceeded it (by less than a minute).
    expect(warning).toMatchObject({ level: 40, limitMs: 300 });
    expect(warning.silentMs).toBeGreaterThan(300);
    expect(warning.silentMs).toBeLessThan(60_000);
    expect(await logged(r, "reconnecting")).toMatchObject({ why: "watchdog", resume: true });
  });
});

describe("discord connection: the figures behind a warning", () => {
  it("a fatal close's error line carries its code and reason", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.closeWith(4013, "Invalid intent(s).");
    const line = await logged(
      r,
      "gateway closed with 4013: invalid intents: the intents value is not a valid bit field. Not reconnecting.",
    );
    expect(line).toMatchObject({ level: 50, code: 4013, reason: "Invalid intent(s)." });
  });

  it("resumes that keep failing say how many failed, and the close after that says it will not resume", async () => {
    r = await startCalmRig({ maxResumeFailures: 2 });
    r.h.fake.sessions.dropResumes(2);
    r.h.fake.sessions.send({ op: 7 });
    expect(await logged(r, "resuming keeps failing; identifying afresh")).toMatchObject({
      level: 40,
      failures: 2,
    });
    expect(await logged(r, "gateway connection closed; reconnecting", { resume: false })).toMatchObject({
      level: 40,
    });
  });
});

describe("discord connection: the resume URL", () => {
  it("a stored resume URL ending in slashes still reaches the resume endpoint", async () => {
    r = await startCalmRig();
    const x = r;
    const stored = () => x.rig.store.gatewayState.get<StoredSession>("discord", SESSION_KEY);
    await eventually(async () => (await stored()) !== undefined, "the stored session");
    await x.rig.stop();
    const session = (await stored()) as StoredSession;
    await x.rig.store.gatewayState.set("discord", SESSION_KEY, {
      ...session,
      resumeUrl: `${session.resumeUrl}//`,
    });
    const count = x.h.fake.connections.length;
    await x.rig.start();
    const resumed = await nextConnection(x, count);
    await eventually(() => resumed.resumedSession !== undefined, "the resume");
    expect(resumed.resumedSession).toBe(session.id);
  });
});
