// Twilio SMS end to end over real HTTP: the fake delivers as Twilio does, a real session runs the
// turn, the reply reaches the fake's Messages API in pieces of at most 1600 characters.
import {
  eventually,
  type SessionRig,
  type SessionRigOptions,
  startSessionRig,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import type { TwilioGatewayOptions } from "../src/index.js";
import { SECRETS, type TwilioWorld, twilioWorld } from "./harness.js";

const user = "+15550001234";
let world: TwilioWorld;
let rig: SessionRig;

async function boot(options: SessionRigOptions = {}, gateway: Partial<TwilioGatewayOptions> = {}) {
  world = await twilioWorld();
  rig = await startSessionRig(world.build(gateway), options);
}

afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("twilio end to end", () => {
  it("answers an SMS from the configured number, cutting a long reply at 1600 characters", async () => {
    const long = Array.from({ length: 500 }, (_, i) => `w${i}`).join(" ");
    await boot({ replyText: long });
    expect(
      (await world.fake.deliverSms({ from: user, body: "tell me", sid: `SM${"1".repeat(32)}` })).status,
    ).toBe(200);
    await eventually(() => world.fake.sent.length >= 2, "two pieces");
    await rig.session.idle(5_000);
    expect(long.length).toBeGreaterThan(1600);
    expect(world.fake.sent).toHaveLength(2);
    for (const piece of world.fake.sent) {
      expect(piece).toMatchObject({ to: user, from: SECRETS.TW_TEST_FROM });
      expect(piece.body.length).toBeLessThanOrEqual(1600);
    }
    expect(
      world.fake.sent
        .map((p) => p.body)
        .join(" ")
        .replace(/\s+/g, " "),
    ).toBe(long);
  });

  it("sends from the Messaging Service when messagingServiceSid is set", async () => {
    await boot({}, { messagingServiceSid: "MG0123456789abcdef0123456789abcdef" });
    await world.fake.deliverSms({ from: user, body: "via service" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    expect(world.fake.sent[0]).toMatchObject({ messagingServiceSid: "MG0123456789abcdef0123456789abcdef" });
    expect(world.fake.sent[0]?.from).toBeUndefined();
  });

  it("the same MessageSid three times gives one turn and one reply", async () => {
    await boot();
    for (let i = 0; i < 3; i++)
      expect(
        (await world.fake.deliverSms({ from: user, body: "just once", sid: `SM${"2".repeat(32)}` })).body,
      ).toBe("<Response></Response>");
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.sent).toHaveLength(1);
    expect(await rig.userMessages(user)).toEqual(["just once"]);
  });

  it("sends an approval as plain text and applies the sender's typed answer", async () => {
    await boot();
    await world.fake.deliverSms({ from: user, body: "please use delete_file on a.txt" });
    await eventually(
      () => world.fake.sent.some((s) => /approve/i.test(s.body) && /reject/i.test(s.body)),
      "the text request",
    );
    expect(world.fake.sent[0]?.body).toContain("delete_file");
    // Someone else typing "approve" decides nothing: the pending request is keyed by the sender's number.
    await world.fake.deliverSms({ from: "+15550006666", body: "approve" });
    await rig.session.idle(5_000);
    expect(rig.executed).toEqual([]);
    await world.fake.deliverSms({ from: user, body: "approve" });
    await eventually(() => rig.executed.length > 0, "the approved tool running");
    await rig.session.idle(5_000);
    expect(rig.executed).toHaveLength(1);
  });

  it("a reply answered 429 and then 503 still reaches the number exactly once", async () => {
    await boot();
    world.fake.failNext(429, 0.05);
    world.fake.failNext(503);
    await world.fake.deliverSms({ from: user, body: "hello through trouble" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.calls).toBe(3);
    expect(world.fake.sent).toHaveLength(1);
  });

  it("acknowledges a voice call and a media-only message with empty TwiML and no turn", async () => {
    await boot();
    const voice: [string, string][] = [
      ["CallSid", "CA0123"],
      ["AccountSid", SECRETS.TW_TEST_ACCOUNT_SID],
      ["From", user],
      ["To", SECRETS.TW_TEST_FROM],
      ["CallStatus", "ringing"],
    ];
    expect((await world.fake.deliver(voice)).body).toBe("<Response></Response>");
    expect((await world.fake.deliverSms({ from: user, body: "", extra: { NumMedia: "1" } })).status).toBe(
      200,
    );
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
    expect(world.fake.sent).toEqual([]);
  });
});
