// What reaches the agent and what does not: opt-out keywords Twilio already answered, messages
// for another account, delivery-status callbacks; and the 1600-character cut of an unbroken reply.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { SECRETS, type TwilioWorld, twilioWorld } from "./harness.js";

const user = "+15550001234";
let world: TwilioWorld;
let rig: SessionRig;
let logs: ReturnType<typeof captureLogs>;

let context: GatewayContext | undefined;

async function boot(replyText?: string) {
  world = await twilioWorld();
  logs = captureLogs();
  const gateway = world.build();
  const start = gateway.start.bind(gateway);
  gateway.start = (ctx) => {
    context = ctx;
    return start(ctx);
  };
  rig = await startSessionRig(gateway, { logger: logs.logger, ...(replyText ? { replyText } : {}) });
}

const outboxStatuses = async (thread: string) => ((await context?.outbox(thread)) ?? []).map((r) => r.status);

afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("twilio inbound", () => {
  it("records STOP, START and HELP (OptOutType) without sending them to the agent", async () => {
    await boot();
    // Advanced Opt-Out adds OptOutType to the incoming-message request; Twilio itself answers the keyword.
    const keywords: [string, string][] = [
      ["STOP", "STOP"],
      ["help", "HELP"],
      ["Start", "START"],
    ];
    for (const [body, type] of keywords)
      expect((await world.fake.deliverSms({ from: user, body, extra: { OptOutType: type } })).body).toBe(
        "<Response></Response>",
      );
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
    expect(world.fake.sent).toEqual([]);
    const recorded = logs.lines().filter((l) => l.msg === "opt-out keyword recorded; Twilio answers it");
    expect(recorded.map((l) => l.optOutType)).toEqual(["STOP", "HELP", "START"]);
  });

  it("ignores a message for another AccountSid", async () => {
    await boot();
    const other = "AC99999999999999999999999999999999";
    expect(
      (await world.fake.deliverSms({ from: user, body: "not yours", extra: { AccountSid: other } })).status,
    ).toBe(200);
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
    expect(
      logs.lines().some((l) => l.msg === "message for another account; ignored" && l.accountSid === other),
    ).toBe(true);
  });

  it("logs why a voice call, a form with NumMedia but no MediaUrl and no text, and a form without From start no turn", async () => {
    await boot();
    const voice: [string, string][] = [
      ["CallSid", "CA0123456789abcdef0123456789abcdef"],
      ["AccountSid", SECRETS.TW_TEST_ACCOUNT_SID],
      ["From", user],
      ["To", SECRETS.TW_TEST_FROM],
      ["CallStatus", "ringing"],
    ];
    expect((await world.fake.deliver(voice)).status).toBe(200);
    expect((await world.fake.deliverSms({ from: user, body: "", extra: { NumMedia: "2" } })).status).toBe(
      200,
    );
    const noFrom = world.fake.smsParams({ from: user, body: "who am I" }).filter(([k]) => k !== "From");
    expect((await world.fake.deliver(noFrom)).status).toBe(200);
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
    const reasons = logs
      .lines()
      .filter((l) => l.msg === "webhook payload ignored")
      .map((l) => String(l.reason));
    expect(reasons).toHaveLength(3);
    expect(reasons[0]).toContain("CallSid CA0123456789abcdef0123456789abcdef");
    expect(reasons[1]).toContain("without text or media");
    expect(reasons[2]).toMatch(/^message SM[0-9a-f]{32} without From$/);
  });

  it("starts no turn for a message whose Body is only whitespace", async () => {
    await boot();
    for (const body of [" ", "  \n\t "])
      expect((await world.fake.deliverSms({ from: user, body })).body).toBe("<Response></Response>");
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
    expect(world.fake.sent).toEqual([]);
  });

  it("logs a failed or undelivered status callback at warn with its ErrorCode, and starts no turn", async () => {
    await boot();
    const sid = `SM${"c".repeat(32)}`;
    for (const [status, code] of [
      ["undelivered", "30003"],
      ["failed", "30007"],
      ["delivered", ""],
    ]) {
      const params: [string, string][] = [
        ["SmsSid", sid],
        ["SmsStatus", status as string],
        ["MessageStatus", status as string],
        ["To", user],
        ["MessageSid", sid],
        ["AccountSid", SECRETS.TW_TEST_ACCOUNT_SID],
        ["From", SECRETS.TW_TEST_FROM],
        ["ApiVersion", "2010-04-01"],
        ...(code ? ([["ErrorCode", code]] as [string, string][]) : []),
      ];
      expect((await world.fake.deliver(params)).status).toBe(200);
    }
    await rig.session.idle(2_000);
    const warned = logs.lines().filter((l) => l.level === 40 && l.msg === "reply not delivered");
    expect(warned.map((l) => [l.status, l.errorCode])).toEqual([
      ["undelivered", "30003"],
      ["failed", "30007"],
    ]);
    expect(await rig.userMessages(user)).toEqual([]);
  });

  it("reports an undelivered reply to the session, so it is not counted as delivered", async () => {
    await boot();
    await world.fake.deliverSms({ from: user, body: "hello" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    const sid = world.fake.sent[0]?.sid as string;
    expect(await outboxStatuses(user)).toEqual(["sent"]);
    const callback: [string, string][] = [
      ["SmsSid", sid],
      ["SmsStatus", "undelivered"],
      ["MessageStatus", "undelivered"],
      ["To", user],
      ["MessageSid", sid],
      ["AccountSid", SECRETS.TW_TEST_ACCOUNT_SID],
      ["From", SECRETS.TW_TEST_FROM],
      ["ApiVersion", "2010-04-01"],
      ["ErrorCode", "30003"],
    ];
    expect((await world.fake.deliver(callback)).status).toBe(200);
    expect(await outboxStatuses(user)).toEqual(["dead"]);
  });

  it("cuts a 10,000-character reply without whitespace into pieces of exactly 1600", async () => {
    const unbroken = "x".repeat(10_000);
    await boot(unbroken);
    await world.fake.deliverSms({ from: user, body: "one long word please" });
    await eventually(() => world.fake.sent.length >= 7, "seven pieces");
    await rig.session.idle(5_000);
    expect(world.fake.sent.map((s) => s.body.length)).toEqual([1600, 1600, 1600, 1600, 1600, 1600, 400]);
    expect(world.fake.sent.map((s) => s.body).join("")).toBe(unbroken);
  });
});
