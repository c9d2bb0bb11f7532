// An operator reads why the bot reconnected from the log: each move of the connection is logged
// with its cause and the figures that explain it (close code and reason, whether it resumes, how
// long until the next try). Close codes and opcodes per
// https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { discordHarness } from "./harness.js";
import { nextConnection, type Rigged, startCalmRig, stopRig, logged } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

describe("discord connection: causes in the log", () => {
  it("a READY names the new session, a RESUMED says the session resumed", async () => {
    r = await startCalmRig();
    const id = r.h.fake.sessions.current?.id;
    expect(await logged(r, "identified (READY)")).toMatchObject({ level: 30, session: id });
    r.h.fake.sessions.drop();
    expect(await logged(r, "session resumed")).toMatchObject({ level: 30 });
  });

  it("a resumable close is a warning with its code and reason, saying it resumes", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.closeWith(4000, "Unknown error.");
    expect(await logged(r, "gateway connection closed; reconnecting")).toMatchObject({
      level: 40,
      code: 4000,
      reason: "Unknown error.",
      resume: true,
    });
  });

  it("each close after a resumed session waits the backoff's first step again (a RESUMED resets it)", async () => {
    // The delays the connection asks its scheduler for (no wall-clock gaps).
    const waits: number[] = [];
    // Calm clocks as startCalmRig's, so only the closes cause reconnects: with the scaled watchdog a
    // starved run replaced the new connection before it resumed ('resume 1' never came).
    const h = await discordHarness({ watchdogMs: 60_000 }, { heartbeatIntervalMs: 2_000 });
    const build = h.gateway;
    h.gateway = async () => {
      const gw = await build();
      const start = gw.start.bind(gw);
      gw.start = (ctx: GatewayContext) =>
        start({
          ...ctx,
          scheduler: {
            ...ctx.scheduler,
            every: (...a) => ctx.scheduler.every(...a),
            cancel: (name) => ctx.scheduler.cancel(name),
            list: () => ctx.scheduler.list(),
            schedule: (name, firstDelayMs, task) => {
              if (name === "connect") waits.push(firstDelayMs);
              ctx.scheduler.schedule(name, firstDelayMs, task);
            },
          },
        });
      return gw;
    };
    const rig = new ContractRig(h);
    r = { h, rig };
    await rig.start();
    await eventually(() => h.fake.sessions.current !== undefined, "READY");
    const x = r;
    for (let i = 1; i <= 3; i++) {
      x.h.fake.sessions.closeWith(4000, "Unknown error.");
      const next = await nextConnection(x, i);
      await eventually(() => next.resumedSession !== undefined, `resume ${i}`);
      await eventually(
        () => x.h.logs.filter((l) => l.msg === "session resumed").length === i,
        `RESUMED ${i}`,
      );
    }
    // The first connect at once, then the harness's backoff: 20 ms (+ up to 20%) each time; without
    // the reset the waits double (40-48, 80-96).
    expect(waits).toHaveLength(4);
    expect(waits[0]).toBe(0);
    for (const wait of waits.slice(1)) expect(wait).toBeLessThanOrEqual(24);
  });

  it("a close that ends the session (4009) is a warning with its code and reason, then a fresh Identify", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.closeWith(4009, "Session timed out.");
    expect(await logged(r, "the session is gone; identifying afresh")).toMatchObject({
      level: 40,
      code: 4009,
      reason: "Session timed out.",
    });
    const next = await nextConnection(r, 1);
    await eventually(() => next.identified, "the identify");
    // The stored session was forgotten: the close of the old one said nothing about resuming it.
    expect(next.resumedSession).toBeUndefined();
  });

  it("Invalid Session d:false is a warning with the wait before identifying: invalidSessionDelayMs by the jitter", async () => {
    // invalidSessionDelayMs [10, 30] and jitter 0.5 in the harness: 10 + 20 × 0.5.
    r = await startCalmRig();
    r.h.fake.sessions.send({ op: 9, d: false });
    expect(await logged(r, "invalid session (not resumable); identifying afresh")).toMatchObject({
      level: 40,
      retryInMs: 20,
    });
  });

  it("a Reconnect (op 7) is logged as asked for, and the move as a resume", async () => {
    r = await startCalmRig();
    r.h.fake.sessions.send({ op: 7 });
    expect(await logged(r, "gateway asked to reconnect (op 7); resuming")).toMatchObject({ level: 30 });
    expect(await logged(r, "reconnecting")).toMatchObject({
      level: 20,
      why: "reconnect requested",
      resume: true,
    });
  });

  it("a 4004 close without a reason still says why the gateway stopped: Discord's name for the code", async () => {
    r = await startCalmRig();
    const x = r;
    x.h.fake.sessions.closeWith(4004);
    await eventually(() => x.rig.session.status().discord?.state === "stopped", "stopped");
    expect(x.rig.session.status().discord?.reason).toBe(
      "credentials rejected by discord: check DISCORD_TOKEN (gateway closed with 4004: Authentication failed.)",
    );
  });

  it("a gateway URL that cannot be fetched (500) is a warning with the backoff's wait, then a connection", async () => {
    const h = await discordHarness();
    h.fake.failNext("^GET /gateway/bot$", { status: 500 });
    const rig = new ContractRig(h);
    r = { h, rig };
    await rig.start();
    const line = await logged(r, "could not connect to the gateway; retrying");
    expect(line.level).toBe(40);
    // The harness's backoff starts at 20 ms (+ up to 20% jitter).
    expect(line.retryInMs).toBeGreaterThanOrEqual(20);
    expect(line.retryInMs).toBeLessThanOrEqual(24);
    expect(line.err).toBeDefined();
    await eventually(() => h.fake.sessions.current !== undefined, "READY after the retry");
  });
});
