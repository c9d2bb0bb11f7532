// Every documented request in packages/testkit/fixtures/twilio/ through the real webhook route over
// HTTP, signed as Twilio signs it, with its outcome asserted: delivered (text, author, thread),
// ignored (the reason logged), decided, warned (a failed status logged with its ErrorCode) or
// unauthorized (401, the reason logged). A new fixture is a new row. ACCOUNT_SID in a payload is
// the test account's; `pendingRequestBy` first opens a text approval request for that number.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Inbound } from "@agentsvc/session-core";
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { SECRETS, type TwilioWorld, twilioWorld } from "./harness.js";

interface Fixture {
  source: string;
  case: string;
  /** The form parameters in the order Twilio sends them (a name may repeat in a forged request). */
  payload: [string, string][];
  pendingRequestBy?: string;
  expect:
    | { outcome: "delivered"; text: string; author: string; thread: string }
    | { outcome: "ignored"; reason: string }
    | { outcome: "decided"; decision: "approve" | "reject"; by: string }
    | { outcome: "warned"; code: string }
    | { outcome: "unauthorized"; reason: string };
}

const dir = join(import.meta.dirname, "../../testkit/fixtures/twilio");
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(dir, f), "utf8")) as Fixture) }));

let world: TwilioWorld;
let rig: SessionRig;
afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("twilio fixtures", () => {
  it("has the minimum set of cases, each citing Twilio's documentation", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/(www|help)\.twilio\.com\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await twilioWorld();
    const logs = captureLogs();
    const gateway = world.build();
    const seen: Inbound[] = [];
    const start = gateway.start.bind(gateway);
    gateway.start = (context) =>
      start({
        ...context,
        deliver: async (inbound) => {
          seen.push(inbound);
          return context.deliver(inbound);
        },
      });
    rig = await startSessionRig(gateway, { logger: logs.logger });
    let pending: string | undefined;
    if (f.pendingRequestBy) {
      await world.fake.deliverSms({
        from: f.pendingRequestBy,
        body: "please use delete_file on fixture.log",
      });
      await eventually(() => world.fake.sent.some((s) => /approve/i.test(s.body)), "the approval request");
      pending = rig.session.snapshot("twilio", f.pendingRequestBy).pendingRequestId;
      expect(pending).toBeDefined();
      seen.length = 0;
    }

    const params = f.payload.map(([k, v]) => [
      k,
      v.replaceAll("ACCOUNT_SID", SECRETS.TW_TEST_ACCOUNT_SID),
    ]) as [string, string][];
    const answer = await world.fake.deliver(params);
    const e = f.expect;
    const reasons = () => logs.lines().map((l) => String(l.reason ?? ""));
    if (e.outcome === "unauthorized") {
      expect(answer).toMatchObject({ status: 401, body: "" });
      expect(reasons()).toContain(e.reason);
      await rig.session.idle(2_000);
      expect(seen).toEqual([]);
      return;
    }
    expect(answer).toMatchObject({ status: 200, body: "<Response></Response>" });
    if (e.outcome === "delivered") {
      await eventually(() => seen.length > 0, "the delivery");
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ text: e.text, author: { id: e.author }, thread: e.thread });
      if (pending) expect((await rig.session.interaction(pending))?.status).toBe("open");
      return;
    }
    if (e.outcome === "decided") {
      await eventually(
        async () => (await rig.session.interaction(pending as string))?.status === "decided",
        "decided",
      );
      if (e.decision === "approve") await eventually(() => rig.executed.length === 1, "the approved tool");
      return;
    }
    await rig.session.idle(2_000);
    expect(seen).toEqual([]);
    if (e.outcome === "ignored") {
      expect(
        reasons().some((r) => r.includes(e.reason)),
        `reasons logged: ${reasons().join(" | ")}`,
      ).toBe(true);
    } else {
      const warned = logs.lines().filter((l) => l.level === 40 && l.msg === "reply not delivered");
      expect(warned.map((l) => l.errorCode)).toEqual([e.code]);
    }
  });
});
