import { eventually } from "@agentsvc/testkit";
// Through a real session: a daemon restart that hands the same envelope over again (the Signal
// server redelivers what it never saw acknowledged) still gets exactly one reply.
import { ContractRig } from "@agentsvc/session-core/testing";
import { afterEach, expect, it } from "vitest";
import { ACCOUNT, signalHarness } from "./harness.js";

let rig: ContractRig | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await rig?.stop();
  await close?.();
});

it("answers each message exactly once across a daemon restart that redelivers it", async () => {
  const h = await signalHarness();
  close = h.close;
  rig = new ContractRig(h);
  await rig.start();
  const thread = "+15550000001";
  await h.inject?.({ id: "m1", thread, text: "first question", author: "aci-1" });
  await eventually(() => h.daemon.sent.some((s) => s.message.includes("first question")), "the first reply");
  await rig.session.idle(10_000);
  const first = h.daemon.connections.length;
  const timestamp = h.daemon.receipts[0]?.targetTimestamps[0] as number;

  await h.daemon.restart();
  await eventually(() => h.daemon.connections.length > first && h.daemon.openStreams === 1, "the reconnect");
  // The same envelope again, then a new one.
  h.daemon.receive(ACCOUNT, { from: thread, uuid: "aci-1", text: "first question", timestamp });
  await h.inject?.({ id: "m2", thread, text: "second question", author: "aci-1" });
  await eventually(
    () => h.daemon.sent.some((s) => s.message.includes("second question")),
    "the second reply",
  );
  await rig.session.idle(10_000);
  expect(h.daemon.sent.filter((s) => s.message.includes("first question"))).toHaveLength(1);
  expect(h.daemon.sent.filter((s) => s.message.includes("second question"))).toHaveLength(1);
  expect(h.daemon.sent.every((s) => s.recipient === thread && s.account === ACCOUNT)).toBe(true);
});
