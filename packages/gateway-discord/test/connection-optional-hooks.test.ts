// heard, platformCallSucceeded and reconnected are optional in a GatewayContext (adapter-kit): a host
// that gives none still gets every message once, across a dropped socket and its resume, and every
// frame (heartbeat ACKs, RESUMED) is read without an error.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { discordHarness } from "./harness.js";
import { changeContext, expectOnceEach, nextConnection, type Rigged, say, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

it("a context without the health hooks: messages before and after a resume each make one turn", async () => {
  const h = await discordHarness({ watchdogMs: 60_000 });
  changeContext(h, ({ heard, platformCallSucceeded, reconnected, ...ctx }) => ctx as GatewayContext);
  const rig = new ContractRig(h);
  r = { h, rig };
  await rig.start();
  await eventually(() => h.fake.sessions.current !== undefined, "READY");
  say(r, "before oh1");
  await expectOnceEach(r, ["oh1"]);
  h.fake.sessions.drop();
  const next = await nextConnection(r, 1);
  await eventually(() => next.resumedSession !== undefined, "the resume");
  say(r, "after oh2");
  await expectOnceEach(r, ["oh1", "oh2"]);
  // A second beat on the new connection: the first one's ACK was read.
  await eventually(() => next.heartbeats >= 2, "two beats on the new connection");
  // A missing hook would have thrown while a frame was read.
  expect(h.logs.filter((l) => l.msg === "unreadable gateway frame")).toEqual([]);
});
