// Who is answered and how, and what happens when Meta reports a reply failed: users known only by
// their business-scoped user id, `failed` statuses (131047 outside the 24-hour window, 131026,
// 130429), old signed messages, and the subscription handshake without a verify token.
import type { GatewayContext, Inbound } from "@agentsvc/adapter-kit";
import { WHATSAPP_STATUS_ERRORS as ERRORS } from "@agentsvc/testkit";
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import type { WhatsappGatewayOptions } from "../src/index.js";
import { SECRETS, type WhatsappWorld, whatsappWorld } from "./harness.js";

const user = "15550001234";
const bsuid = "US.13491208655302741918";
const DAY_S = 24 * 60 * 60;
let world: WhatsappWorld;
let rig: SessionRig;
let logs: ReturnType<typeof captureLogs>;

let context: GatewayContext | undefined;
/** What the gateway handed the session, in order. */
let delivered: Inbound[] = [];

async function boot(options: Partial<WhatsappGatewayOptions> = {}, env?: Record<string, string | undefined>) {
  world = await whatsappWorld();
  logs = captureLogs();
  const gateway = world.build(options);
  const start = gateway.start.bind(gateway);
  delivered = [];
  gateway.start = (ctx) => {
    context = ctx;
    return start({
      ...ctx,
      deliver: async (inbound) => {
        delivered.push(inbound);
        return ctx.deliver(inbound);
      },
    });
  };
  rig = await startSessionRig(gateway, { logger: logs.logger, ...(env ? { env } : {}) });
}

const outboxStatuses = async (thread: string) => ((await context?.outbox(thread)) ?? []).map((r) => r.status);

afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

const warnings = (msg: string) => logs.lines().filter((l) => l.level === 40 && l.msg === msg);

describe("whatsapp users and failed deliveries", () => {
  it("answers a user known only by from_user_id, addressing the reply with recipient", async () => {
    await boot();
    const answer = await world.fake.deliverText({
      userId: bsuid,
      username: "maria.l",
      name: "Maria",
      text: "hi",
    });
    expect(answer.status).toBe(200);
    await eventually(() => world.fake.sent.length > 0, "the reply");
    expect(world.fake.sent[0]).toMatchObject({ to: bsuid, addressedBy: "recipient", type: "text" });
    expect(world.fake.sent[0]?.body.to).toBeUndefined();
    expect(await rig.userMessages(bsuid)).toEqual(["hi"]);
  });

  it("still addresses a user with a phone number by `to`", async () => {
    await boot();
    await world.fake.deliverText({ from: user, userId: bsuid, text: "hello" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    expect(world.fake.sent[0]).toMatchObject({ to: user, addressedBy: "to" });
  });

  it("logs failed statuses at warn with the error code (131026 undeliverable, 130429 rate limit)", async () => {
    await boot();
    await world.fake.deliverText({ from: user, text: "hello" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    const id = world.fake.sent[0]?.id as string;
    expect((await world.fake.deliverStatus(id, "failed", ERRORS.undeliverable)).status).toBe(200);
    expect((await world.fake.deliverStatus(id, "failed", ERRORS.rateLimited)).status).toBe(200);
    expect((await world.fake.deliverStatus(id, "delivered")).status).toBe(200);
    const failed = warnings("reply not delivered");
    expect(failed.map((l) => [l.id, l.code])).toEqual([
      [id, 131026],
      [id, 130429],
    ]);
  });

  it("reports a failed reply to the session, so it is not counted as delivered", async () => {
    await boot();
    await world.fake.deliverText({ from: user, text: "hello" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    const id = world.fake.sent[0]?.id as string;
    expect(await outboxStatuses(user)).toEqual(["sent"]);
    await world.fake.deliverStatus(id, "failed", ERRORS.undeliverable);
    expect(await outboxStatuses(user)).toEqual(["dead"]);
    expect(warnings("reply not delivered")[0]).toMatchObject({ code: 131026, counted: "dead in the outbox" });
  });

  it("sends a reply that failed on the throughput limit (130429) again, once it went through", async () => {
    await boot();
    await world.fake.deliverText({ from: user, text: "hello" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    const first = world.fake.sent[0];
    await world.fake.deliverStatus(first?.id as string, "failed", ERRORS.rateLimited);
    await eventually(() => world.fake.sent.length === 2, "the reply sent again");
    expect(world.fake.sent[1]).toMatchObject({ to: user, text: first?.text });
    await rig.session.idle(5_000);
    expect(await outboxStatuses(user)).toEqual(["sent"]);
    expect(warnings("reply not delivered")[0]).toMatchObject({
      code: 130429,
      counted: "pending again (retried)",
    });
  });

  it("outside the 24-hour window, sends the configured template to the user once", async () => {
    await boot({ templateName: "reopen_conversation", templateLanguage: "en_US" });
    world.fake.windowClosed.add(user);
    await world.fake.deliverText({ from: user, text: "hello after a long time" });
    await eventually(() => world.fake.sent.some((s) => s.type === "template"), "the template");
    await Promise.all(world.fake.statusDeliveries);
    expect(world.fake.sent.filter((s) => s.type === "template")).toEqual([
      expect.objectContaining({ to: user, template: { name: "reopen_conversation", language: "en_US" } }),
    ]);
    expect(warnings("reply not delivered")[0]).toMatchObject({ code: 131047 });
    // A second failure in the same window sends no second template.
    const text = world.fake.sent.find((s) => s.type === "text")?.id as string;
    await world.fake.deliverStatus(text, "failed", ERRORS.outsideWindow);
    expect(world.fake.sent.filter((s) => s.type === "template")).toHaveLength(1);
  });

  it("outside the 24-hour window without a template, says plainly that the reply was not delivered", async () => {
    await boot();
    world.fake.windowClosed.add(user);
    await world.fake.deliverText({ from: user, text: "hello after a long time" });
    await eventually(() => world.fake.statusDeliveries.length > 0, "the failed status");
    await Promise.all(world.fake.statusDeliveries);
    expect(world.fake.sent.filter((s) => s.type === "template")).toEqual([]);
    const [line] = warnings("reply not delivered");
    expect(line?.code).toBe(131047);
    expect(String(line?.detail)).toMatch(/24-hour window.*no templateName is configured/);
  });
});

describe("whatsapp notifications not for this phone number", () => {
  // One app's webhook receives every product and phone number it is subscribed to: `object` names
  // the product and `metadata.phone_number_id` the business number a message was sent to
  // (https://developers.facebook.com/docs/graph-api/webhooks/getting-started ,
  // https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components).
  const text = (id: string, body: string) => ({
    from: user,
    id,
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: "text",
    text: { body },
  });
  const changeValue = (payload: Record<string, unknown>) =>
    ((payload.entry as { changes: { value: Record<string, unknown> }[] }[])[0]?.changes[0]?.value ?? {}) as {
      metadata: Record<string, unknown>;
    };

  it("starts no turn for a message whose metadata names no phone number id", async () => {
    await boot();
    const payload = world.fake.notification(user, [text("wamid.nometadata1", "for whom?")]);
    delete changeValue(payload).metadata.phone_number_id;
    expect((await world.fake.deliver(payload)).status).toBe(200);
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
  });

  it("takes only this number's change when one notification carries another number's too", async () => {
    await boot();
    const ours = world.fake.notification(user, [text("wamid.ours1", "mine")]);
    const theirs = world.fake.notification(user, [text("wamid.theirs1", "not mine")]);
    changeValue(theirs).metadata.phone_number_id = "999999999999999";
    const entry = (ours.entry as { changes: unknown[] }[])[0];
    entry?.changes.unshift(...((theirs.entry as { changes: unknown[] }[])[0]?.changes ?? []));
    expect((await world.fake.deliver(ours)).status).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(user)).toEqual(["mine"]);
  });

  it("starts no turn for a notification of another product (object other than whatsapp_business_account)", async () => {
    await boot();
    const payload = { ...world.fake.notification(user, [text("wamid.page1", "hi")]), object: "page" };
    expect((await world.fake.deliver(payload)).status).toBe(200);
    await rig.session.idle(2_000);
    expect(await rig.userMessages(user)).toEqual([]);
    expect(
      logs
        .lines()
        .some(
          (l) =>
            l.msg === "webhook event ignored" && /not a whatsapp_business_account/.test(String(l.reason)),
        ),
    ).toBe(true);
  });
});

describe("whatsapp messages with awkward shapes", () => {
  const at = () => String(Math.floor(Date.now() / 1000));
  const refusals = () =>
    logs
      .lines()
      .filter((l) => l.msg === "webhook request refused: not verified")
      .map((l) => l.reason);

  it("skips messages without a sender, without a timestamp, or with a text body that is not a string", async () => {
    await boot();
    const messages = [
      { id: "wamid.nofrom1", timestamp: at(), type: "text", text: { body: "who?" } },
      { from: user, id: "wamid.notime1", type: "text", text: { body: "when?" } },
      { from: user, id: "wamid.numbody1", timestamp: at(), type: "text", text: { body: 42 } },
    ];
    expect((await world.fake.deliver(world.fake.notification(user, messages))).status).toBe(200);
    await rig.session.idle(2_000);
    expect(delivered).toEqual([]);
    const reasons = logs.lines().map((l) => String(l.reason ?? ""));
    for (const why of ["message without id or sender", "message without timestamp", "empty text"])
      expect(reasons).toContain(why);
  });

  it("reads past list items that are not objects (an entry, a change, a message given as null)", async () => {
    await boot();
    const payload = world.fake.notification(user, [
      null as unknown as Record<string, unknown>,
      { from: user, id: "wamid.afternull1", timestamp: at(), type: "text", text: { body: "still here" } },
    ]);
    (payload.entry as unknown[]).unshift(null);
    ((payload.entry as { changes: unknown[] }[])[1]?.changes ?? []).unshift(null);
    expect((await world.fake.deliver(payload)).status).toBe(200);
    expect((await world.fake.deliver("null")).status).toBe(200);
    await rig.session.idle(5_000);
    expect(delivered.map((d) => d.text)).toEqual(["still here"]);
  });

  it("names the author from the contact that sent the message, by phone number or by user id", async () => {
    await boot();
    const other = { profile: { name: "Someone Else" }, wa_id: "15559990000", user_id: "US.999" };
    const byPhone = world.fake.notification(other, [
      { from: user, id: "wamid.byphone1", timestamp: at(), type: "text", text: { body: "by phone" } },
    ]);
    const byUserId = world.fake.notification(other, [
      { from_user_id: "US.111", id: "wamid.byuser1", timestamp: at(), type: "text", text: { body: "by id" } },
    ]);
    for (const [payload, contact] of [
      [byPhone, { profile: { name: "Phone Person" }, wa_id: user }],
      [byUserId, { profile: { name: "Id Person" }, user_id: "US.111" }],
    ] as const) {
      (
        (payload.entry as { changes: { value: { contacts: unknown[] } }[] }[])[0]?.changes[0]?.value
          .contacts ?? []
      ).push(contact);
      expect((await world.fake.deliver(payload)).status).toBe(200);
    }
    await rig.session.idle(5_000);
    expect(delivered.map((d) => [d.text, d.author?.displayName])).toEqual([
      ["by phone", "Phone Person"],
      ["by id", "Id Person"],
    ]);
  });

  it("takes a press on a button it did not render as its title, and skips an interactive reply without one", async () => {
    await boot();
    // A reply button of a message this gateway did not send (a template's), as Meta documents
    // interactive button_reply messages; then one whose reply object is missing.
    const press = {
      from: user,
      id: "wamid.press1",
      timestamp: at(),
      type: "interactive",
      interactive: { type: "button_reply", button_reply: { id: "shop-later", title: "Later, thanks" } },
    };
    const empty = {
      from: user,
      id: "wamid.press2",
      timestamp: at(),
      type: "interactive",
      interactive: { type: "button_reply" },
    };
    expect((await world.fake.deliver(world.fake.notification(user, [press, empty]))).status).toBe(200);
    await rig.session.idle(5_000);
    expect(delivered.map((d) => d.text)).toEqual(["Later, thanks"]);
    expect(logs.lines().map((l) => String(l.reason ?? ""))).toContain("interactive without a reply");
  });

  it("takes a video's caption as the message", async () => {
    await boot();
    const video = {
      from: user,
      id: "wamid.video1",
      timestamp: at(),
      type: "video",
      video: { id: "1", caption: "look" },
    };
    expect((await world.fake.deliver(world.fake.notification(user, [video]))).status).toBe(200);
    await rig.session.idle(5_000);
    expect(delivered.map((d) => d.text)).toEqual(["look"]);
  });

  it("logs a failed status with Meta's title and details", async () => {
    await boot();
    await world.fake.deliverText({ from: user, text: "hello" });
    await eventually(() => world.fake.sent.length > 0, "the reply");
    const id = world.fake.sent[0]?.id as string;
    const error = { code: 131026, title: "Message Undeliverable", details: "Unable to deliver the message." };
    expect((await world.fake.deliverStatus(id, "failed", error)).status).toBe(200);
    expect(warnings("reply not delivered")[0]).toMatchObject({
      code: 131026,
      title: "Message Undeliverable",
      detail: "Unable to deliver the message.",
    });
  });

  it("logs why a handshake was refused, and refuses one without a token", async () => {
    await boot();
    expect((await world.fake.handshake("c-1", "wrong-token")).status).toBe(403);
    expect((await world.fake.handshake("c-2", undefined, "unsubscribe")).status).toBe(403);
    const url = new URL(world.host.urlOf("whatsapp"));
    url.searchParams.set("hub.mode", "subscribe");
    url.searchParams.set("hub.challenge", "c-3");
    expect((await fetch(url)).status).toBe(403);
    expect(refusals()).toEqual(["wrong verify token", "mode is not subscribe", "wrong verify token"]);
  });

  it("answers 400 to a signed body that is not JSON", async () => {
    await boot();
    expect((await world.fake.deliver("{not json")).status).toBe(400);
    await rig.session.idle(2_000);
    expect(delivered).toEqual([]);
  });
});

describe("whatsapp replays and the handshake", () => {
  it("refuses a signed message whose timestamp is older than the 7-day dedup window", async () => {
    await boot();
    const now = Math.floor(Date.now() / 1000);
    expect(
      (await world.fake.deliverText({ from: user, text: "old", timestamp: now - 8 * DAY_S })).status,
    ).toBe(200);
    expect(
      (await world.fake.deliverText({ from: user, text: "recent", timestamp: now - 6 * DAY_S })).status,
    ).toBe(200);
    await rig.session.idle(5_000);
    expect(await rig.userMessages(user)).toEqual(["recent"]);
    expect(
      logs
        .lines()
        .some(
          (l) => l.msg === "webhook event ignored" && /older than the dedup window/.test(String(l.reason)),
        ),
    ).toBe(true);
  });

  it.each([
    ["unset", undefined],
    ["empty", ""],
  ])("fails the start and the GET handshake when the verify token variable is %s", async (_, value) => {
    const saved = process.env.WA_TEST_VERIFY_TOKEN;
    delete process.env.WA_TEST_VERIFY_TOKEN;
    try {
      await expect(boot({}, { ...SECRETS, WA_TEST_VERIFY_TOKEN: value })).rejects.toThrow(
        /WA_TEST_VERIFY_TOKEN is not set/,
      );
      for (const token of ["", "anything"]) {
        const answer = await world.fake.handshake("challenge-123", token);
        expect(answer.status).not.toBe(200);
        expect(answer.body).not.toContain("challenge-123");
      }
    } finally {
      process.env.WA_TEST_VERIFY_TOKEN = saved;
    }
  });

  it("answers the handshake only for mode subscribe with the configured token", async () => {
    await boot();
    expect(await world.fake.handshake("c-1")).toMatchObject({ status: 200, body: "c-1" });
    expect((await world.fake.handshake("c-2", "wrong-token")).status).toBe(403);
    expect((await world.fake.handshake("c-3", undefined, "unsubscribe")).status).toBe(403);
  });
});
