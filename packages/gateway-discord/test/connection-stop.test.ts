// stop() ends the connection's every task and closes its socket with a code that keeps the Discord
// session resumable (not 1000/1001, which end it: https://discord.com/developers/docs/events/gateway#resuming);
// a message whose recording fails after stop starts no resume.
import { eventually } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { type Rigged, say, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const TASKS = ["connect", "heartbeat", "watchdog", "deaf-watch"];

/** The connection's tasks still scheduled. */
const tasks = (x: Rigged) =>
  x.rig.session.scheduler
    .list()
    .map((t) => t.name)
    .filter((name) => TASKS.some((task) => name.endsWith(task)));

it("stop cancels connect, heartbeat, watchdog and deaf-watch and closes the socket resumably", async () => {
  r = await startRig({ deafAfter: "10s" });
  const x = r;
  await eventually(() => tasks(x).some((name) => name.endsWith("heartbeat")), "the heartbeat scheduled");
  expect(tasks(x).some((name) => name.endsWith("watchdog"))).toBe(true);
  await x.rig.gateway.stop();
  expect(tasks(x)).toEqual([]);
  const first = x.h.fake.connections[0];
  await eventually(() => first?.closedAt !== undefined, "the socket closed");
  expect(first).toMatchObject({ closedBy: "client", closeCode: 4900 });
});

it("stop while a reconnect waits out its backoff cancels the pending connect", async () => {
  r = await startRig({ backoff: { baseMs: 60_000, maxMs: 60_000 } });
  const x = r;
  x.h.fake.sessions.closeWith(4000, "Unknown error");
  await eventually(() => tasks(x).some((name) => name.endsWith("connect")), "the reconnect scheduled");
  await x.rig.gateway.stop();
  expect(tasks(x)).toEqual([]);
});

it("a message whose recording fails after stop is not resumed for: no error, no connect scheduled", async () => {
  r = await startRig();
  const x = r;
  let failed: Promise<unknown> | undefined;
  let release = () => {};
  const held = new Promise<void>((done) => {
    release = done;
  });
  x.rig.deliverHook = (inbound, next) => {
    if (!inbound.text.includes("sf1")) return next(inbound);
    failed = held.then(() => {
      throw new Error("store unavailable");
    });
    return failed as Promise<never>;
  };
  say(x, "held sf1");
  await eventually(() => failed !== undefined, "the message in the session");
  await x.rig.gateway.stop();
  release();
  await (failed as Promise<unknown>).catch(() => {});
  // The failure reaches the connection through promise callbacks only: one turn of the event loop settles it.
  await new Promise((done) => setImmediate(done));
  expect(x.h.logs.some((l) => l.msg === "dispatch not recorded; resuming to get it again")).toBe(false);
  expect(tasks(x)).toEqual([]);
});
