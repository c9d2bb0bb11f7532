// Replays (issue #22 item 4). Twilio's signed string is the URL followed by every key and value with
// no separator, so moving a parameter boundary keeps the signature: `MessageSid=<sid>NumMedia0`
// without `NumMedia` signs like the original. The gateway accepts only Twilio-shaped message SIDs,
// refuses repeated parameter names, and lets one signature stand for one parameter set only.
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type TwilioWorld, twilioWorld } from "./harness.js";

const user = "+15550001234";
let world: TwilioWorld;
let rig: SessionRig;
let logs: ReturnType<typeof captureLogs>;

async function boot() {
  world = await twilioWorld();
  logs = captureLogs();
  rig = await startSessionRig(world.build(), { logger: logs.logger });
}

afterEach(async () => {
  vi.useRealTimers();
  await rig?.stop();
  await world?.close();
});

/** Moves the boundary between `key` and the next parameter in sort order into `key`'s value. */
function shiftInto(params: [string, string][], key: string, next: string): [string, string][] {
  const nextValue = params.find(([k]) => k === next)?.[1] ?? "";
  return params
    .filter(([k]) => k !== next)
    .map(([k, v]) => (k === key ? [k, `${v}${next}${nextValue}`] : [k, v]) as [string, string]);
}

const form = { "content-type": "application/x-www-form-urlencoded" };

describe("twilio replays with shifted parameter boundaries", () => {
  it("a captured 'approve' re-sent with its MessageSid boundary shifted does not approve a later request", async () => {
    await boot();
    await world.fake.deliverSms({ from: user, body: "please use delete_file on a.txt" });
    await eventually(() => world.fake.sent.some((s) => /approve/i.test(s.body)), "the first request");
    const approve = world.fake.smsParams({ from: user, body: "approve" });
    const signature = world.fake.sign(approve);
    expect((await world.fake.deliver(approve, { ...form, "x-twilio-signature": signature })).status).toBe(
      200,
    );
    await eventually(() => rig.executed.length === 1, "the first tool running");
    await rig.session.idle(5_000);

    await world.fake.deliverSms({ from: user, body: "please use delete_file on b.txt" });
    await eventually(
      () => world.fake.sent.filter((s) => /approve/i.test(s.body)).length >= 2,
      "the second request",
    );
    const shifted = shiftInto(approve, "MessageSid", "NumMedia");
    const answer = await world.fake.deliver(shifted, { ...form, "x-twilio-signature": signature });
    expect(answer.status).toBe(401);
    await rig.session.idle(3_000);
    expect(rig.executed).toHaveLength(1);
    expect(
      logs
        .lines()
        .some(
          (l) => l.msg === "webhook request refused: not verified" && l.reason === "malformed_message_sid",
        ),
    ).toBe(true);
  });

  it("a signature seen with one parameter set is refused with another that signs the same", async () => {
    await boot();
    const params = world.fake.smsParams({ from: user, body: "hello" });
    const signature = world.fake.sign(params);
    expect((await world.fake.deliver(params, { ...form, "x-twilio-signature": signature })).status).toBe(200);
    // `To` swallows `ToCountry`: the MessageSid is untouched, the signed string is the same.
    const shifted = shiftInto(params, "To", "ToCountry");
    expect(world.fake.sign(shifted)).toBe(signature);
    const answer = await world.fake.deliver(shifted, { ...form, "x-twilio-signature": signature });
    expect(answer.status).toBe(401);
    expect(logs.lines().some((l) => l.reason === "replayed_signature")).toBe(true);
    // Twilio retrying the very same request is still a retry, acknowledged and run once.
    expect((await world.fake.deliver(params, { ...form, "x-twilio-signature": signature })).status).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(user)).toEqual(["hello"]);
  });

  it("still refuses the shifted parameter set 8 days later, after the session's 7-day dedup window", async () => {
    // Only Date is controlled (timers stay real), from before the store reads its clock.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now(), shouldAdvanceTime: true });
    await boot();
    const params = world.fake.smsParams({ from: user, body: "hello" });
    const signature = world.fake.sign(params);
    expect((await world.fake.deliver(params, { ...form, "x-twilio-signature": signature })).status).toBe(200);
    await rig.session.idle(5_000);
    // The signature's claim must outlive the MessageSid's dedup record.
    vi.setSystemTime(Date.now() + 8 * 24 * 60 * 60 * 1000);
    const shifted = shiftInto(params, "To", "ToCountry");
    const answer = await world.fake.deliver(shifted, { ...form, "x-twilio-signature": signature });
    expect(answer.status).toBe(401);
    expect(logs.lines().some((l) => l.reason === "replayed_signature")).toBe(true);
  });

  it("refuses the very same request re-sent 8 days later, once the MessageSid's dedup record may be gone", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now(), shouldAdvanceTime: true });
    await boot();
    const params = world.fake.smsParams({ from: user, body: "hello" });
    const signature = world.fake.sign(params);
    expect((await world.fake.deliver(params, { ...form, "x-twilio-signature": signature })).status).toBe(200);
    await rig.session.idle(5_000);
    // Twilio retries within minutes; a byte-identical copy a week later is a captured replay.
    vi.setSystemTime(Date.now() + 8 * 24 * 60 * 60 * 1000);
    const answer = await world.fake.deliver(params, { ...form, "x-twilio-signature": signature });
    expect(answer.status).toBe(401);
    expect(logs.lines().some((l) => l.reason === "replayed_signature")).toBe(true);
    expect(await rig.userMessages(user)).toEqual(["hello"]);
  });

  it("takes a retry whose parameters come in another order as the same request (one turn)", async () => {
    await boot();
    const params = world.fake.smsParams({ from: user, body: "hello" });
    const signature = world.fake.sign(params);
    // The signature sorts the parameters, so their order in the form is not part of what was signed.
    const reordered = [params, [...params].reverse(), [...params.slice(3), ...params.slice(0, 3)]];
    for (const order of reordered)
      expect((await world.fake.deliver(order, { ...form, "x-twilio-signature": signature })).status).toBe(
        200,
      );
    await rig.session.idle(5_000);
    expect(await rig.userMessages(user)).toEqual(["hello"]);
  });

  it("refuses a form that names a parameter twice", async () => {
    await boot();
    const params = world.fake.smsParams({ from: user, body: "twice" });
    const doubled: [string, string][] = [...params, ["Body", "approve"]];
    const answer = await world.fake.deliver(doubled);
    expect(answer.status).toBe(401);
    expect(logs.lines().some((l) => l.reason === "duplicate_parameter")).toBe(true);
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
  });

  it("refuses a MessageSid that is not SM or MM followed by 32 hex digits", async () => {
    await boot();
    for (const sid of [
      "SMshort",
      `XX${"0".repeat(32)}`,
      `SM${"A".repeat(32)}`,
      `xSM${"0".repeat(32)}`,
      `SM${"0".repeat(32)}0`,
    ]) {
      const answer = await world.fake.deliverSms({ from: user, body: `sid ${sid}`, sid });
      expect(answer.status).toBe(401);
    }
    expect(
      (await world.fake.deliverSms({ from: user, body: "mms", sid: `MM${"ab".repeat(16)}` })).status,
    ).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(user)).toEqual(["mms"]);
  });
});
