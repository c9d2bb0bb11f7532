// What the connection leaves scheduled and when it counts itself up: a fatal close
// (https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes)
// leaves no heartbeat or watchdog running, stop leaves no task at all; a socket that has not said Hello
// is not up, so deafAfter waits for the watchdog to replace it; a resume URL that cannot be opened is
// retried with a warning; a halted connection is not reopened by a dispatch that failed to record.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_KEY, type StoredSession } from "../src/connection.js";
import { discordHarness } from "./harness.js";
import { changeContext, logged, type Rigged, recordScheduling, say, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

/** A calm rig whose gateway's context is kept, to read its scheduler's tasks. */
async function keptContextRig(
  overrides?: Parameters<typeof discordHarness>[0],
  fakeOptions?: Parameters<typeof discordHarness>[1],
) {
  const h = await discordHarness(
    { watchdogMs: 60_000, ...overrides },
    { heartbeatIntervalMs: 2_000, ...fakeOptions },
  );
  let ctx: GatewayContext | undefined;
  changeContext(h, (c) => {
    ctx = c;
    return c;
  });
  r = { h, rig: new ContractRig(h) };
  await r.rig.start();
  await eventually(() => h.fake.sessions.current !== undefined, "READY");
  const tasks = () => (ctx as GatewayContext).scheduler.list().map((t) => t.name.replace(/^discord:/, ""));
  const task = (name: string) =>
    (ctx as GatewayContext).scheduler.list().find((t) => t.name.replace(/^discord:/, "") === name);
  return { x: r, tasks, task };
}

describe("discord connection: tasks and readiness", () => {
  it("a fatal close leaves neither the heartbeat nor the watchdog scheduled", async () => {
    const { x, tasks } = await keptContextRig();
    expect(tasks()).toEqual(expect.arrayContaining(["heartbeat", "watchdog"]));
    x.h.fake.sessions.closeWith(4013, "Invalid intent(s).");
    await eventually(() => x.h.built.at(-1)?.halted === true, "halted");
    expect(tasks()).not.toContain("heartbeat");
    expect(tasks()).not.toContain("watchdog");
  });

  it("stop leaves none of the connection's tasks scheduled, the deaf watch included", async () => {
    const { x, tasks } = await keptContextRig({ deafAfter: "10s" });
    expect(tasks()).toContain("deaf-watch");
    const before = tasks();
    // The gateway's own stop, not the session's (which drops every task of the gateway by itself).
    await x.h.built.at(-1)?.stop();
    for (const name of before) expect(tasks()).not.toContain(name);
  });

  it("a socket that never says Hello is not up: the watchdog replaces it before deafAfter could", async () => {
    const h = await discordHarness({ watchdogMs: 2_000, deafAfter: "1s" }, { heartbeatIntervalMs: 2_000 });
    h.fake.sessions.withholdHello(1);
    r = { h, rig: new ContractRig(h) };
    await r.rig.start();
    await eventually(() => h.logs.some((l) => l.msg === "reconnecting"), "a reconnect", 10_000);
    expect(h.logs.find((l) => l.msg === "reconnecting")).toMatchObject({ why: "watchdog" });
    expect(h.logs.some((l) => /deafAfter/.test(l.msg))).toBe(false);
  });

  it("a dispatch whose recording fails after a fatal close schedules no new connection", async () => {
    const h = await discordHarness({ watchdogMs: 60_000 }, { heartbeatIntervalMs: 2_000 });
    const scheduled = recordScheduling(h);
    r = { h, rig: new ContractRig(h) };
    await r.rig.start();
    await eventually(() => h.fake.sessions.current !== undefined, "READY");
    let entered = false;
    let release = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    r.rig.deliverHook = async (inbound, next) => {
      if (!inbound.text.includes("hf1")) return next(inbound);
      entered = true;
      await held;
      throw new Error("store unavailable");
    };
    say(r, "held hf1");
    await eventually(() => entered, "the message in the session");
    h.fake.sessions.closeWith(4013, "Invalid intent(s).");
    await eventually(() => h.built.at(-1)?.halted === true, "halted");
    const connects = scheduled.filter((t) => t.name === "connect").length;
    release();
    await logged(r, "dispatch not recorded; resuming to get it again");
    expect(scheduled.filter((t) => t.name === "connect")).toHaveLength(connects);
  });

  it("once READY, connecting is over: the connect task is not left running", async () => {
    const { task } = await keptContextRig();
    expect(task("connect")?.running ?? false).toBe(false);
  });

  it("a resume URL that cannot be opened (404) is retried, each time with a warning, and the failed socket is not watched", async () => {
    // A failed socket still watched would be reported as silent during the backoff's waits (1.5 s,
    // three times the 500 ms limit). The limit also covers a socket still opening (an unanswered
    // upgrade is replaced): at 100 ms a loaded run's 404 came later than that and was reported. Hello's
    // interval 60 s: the first connection, which said Hello, has a minute of silence allowed.
    r = await startRig(
      { watchdogMs: 500, backoff: { baseMs: 1_500, maxMs: 1_500 } },
      { heartbeatIntervalMs: 60_000 },
    );
    const x = r;
    const stored = () => x.rig.store.gatewayState.get<StoredSession>("discord", SESSION_KEY);
    await eventually(async () => (await stored()) !== undefined, "the stored session");
    await x.rig.stop();
    const session = (await stored()) as StoredSession;
    const nowhere = session.resumeUrl.replace(/\/resume\/?$/, "/nowhere");
    await x.rig.store.gatewayState.set("discord", SESSION_KEY, { ...session, resumeUrl: nowhere });
    await x.rig.start();
    await eventually(
      () => x.h.logs.filter((l) => l.msg === "could not connect to the gateway; retrying").length >= 3,
      "three warnings",
      20_000,
    );
    expect(x.h.logs.some((l) => l.msg === "no gateway frame within the watchdog period; reconnecting")).toBe(
      false,
    );
    expect(x.h.logs.find((l) => l.msg === "could not connect to the gateway; retrying")?.err).toBeDefined();
  });

  it("after a fatal close the deaf watch keeps checking without failing and without calling the connection deaf", async () => {
    const { x, task } = await keptContextRig({ deafAfter: "1s" });
    x.h.fake.sessions.closeWith(4013, "Invalid intent(s).");
    await eventually(() => x.h.built.at(-1)?.halted === true, "halted");
    // deafAfter 1 s is checked every 250 ms: eight checks span twice deafAfter.
    const runs = task("deaf-watch")?.runs ?? 0;
    await eventually(() => (task("deaf-watch")?.runs ?? 0) >= runs + 8, "eight more checks", 10_000);
    expect(task("deaf-watch")?.errors).toBe(0);
    expect(x.h.logs.some((l) => /deafAfter/.test(l.msg))).toBe(false);
  });
});
