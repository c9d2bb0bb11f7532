// Every documented request in packages/testkit/fixtures/twilio/ through the real webhook route over
// HTTP, signed as Twilio signs it, with its outcome asserted: delivered (text, author, thread),
// ignored (the reason logged), decided, warned (a failed status logged with its ErrorCode) or
// unauthorized (401, the reason logged). A new fixture is a new row. ACCOUNT_SID in a payload is
// the test account's; `pendingRequestBy` first opens a text approval request for that number.
import {
  type CommonOutcome,
  eventually,
  expectCommonOutcome,
  expectNothingDelivered,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { SECRETS, type TwilioWorld, twilioWorld } from "./harness.js";

interface Fixture {
  source: string;
  case: string;
  /** The form parameters in the order Twilio sends them (a name may repeat in a forged request). */
  payload: [string, string][];
  pendingRequestBy?: string;
  expect: CommonOutcome | { outcome: "warned"; code: string } | { outcome: "unauthorized"; reason: string };
}

const fixtures = loadFixtures<Fixture>("twilio");

let world: TwilioWorld;
let run: FixtureRun;
afterEach(async () => {
  await run?.rig.stop();
  await world?.close();
});

describe("twilio fixtures", () => {
  it("has the minimum set of cases, each citing Twilio's documentation", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/(www|help)\.twilio\.com\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await twilioWorld();
    run = await runFixtureGateway(world.build());
    let pending: string | undefined;
    if (f.pendingRequestBy) {
      await world.fake.deliverSms({
        from: f.pendingRequestBy,
        body: "please use delete_file on fixture.log",
      });
      await eventually(() => world.fake.sent.some((s) => /approve/i.test(s.body)), "the approval request");
      pending = run.rig.session.snapshot("twilio", f.pendingRequestBy).pendingRequestId;
      expect(pending).toBeDefined();
      run.seen.length = 0;
    }

    const params = f.payload.map(([k, v]) => [
      k,
      v.replaceAll("ACCOUNT_SID", SECRETS.TW_TEST_ACCOUNT_SID),
    ]) as [string, string][];
    const answer = await world.fake.deliver(params);
    const e = f.expect;
    if (e.outcome === "unauthorized") {
      expect(answer).toMatchObject({ status: 401, body: "" });
      expect(run.reasons()).toContain(e.reason);
      await expectNothingDelivered(run);
      return;
    }
    expect(answer).toMatchObject({ status: 200, body: "<Response></Response>" });
    if (await expectCommonOutcome(run, e, pending)) return;
    if (e.outcome !== "warned") throw new Error(`${f.file}: unknown outcome ${e.outcome}`);
    await expectNothingDelivered(run);
    const warned = run.logs.lines().filter((l) => l.level === 40 && l.msg === "reply not delivered");
    expect(warned.map((l) => l.errorCode)).toEqual([e.code]);
  });
});
