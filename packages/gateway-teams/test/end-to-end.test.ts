// Teams end to end over real HTTP: the connector fake posts activities with signed JWTs, a real
// session runs the turn, replies reach the connector in pieces of at most 4000 characters, and an
// approval is an Adaptive Card that a click decides and that is updated afterwards.
import {
  eventually,
  type SessionRig,
  type SessionRigOptions,
  startSessionRig,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { alice, bob, type TeamsWorld, teamsWorld } from "./harness.js";

const conversationId = "a:1e2e";
let world: TeamsWorld;
let rig: SessionRig;

async function boot(options: SessionRigOptions = {}) {
  world = await teamsWorld();
  rig = await startSessionRig(world.build(), options);
}

afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

const say = (text: string, id?: string) =>
  world.fake.deliverMessage({ conversationId, from: alice, text, ...(id ? { id } : {}) });

describe("teams end to end", () => {
  it("answers a personal message in the conversation, cut into pieces of at most 4000 characters", async () => {
    const long = Array.from({ length: 1500 }, (_, i) => `word${i}`).join(" ");
    await boot({ replyText: long });
    expect((await say("tell me everything")).status).toBe(200);
    const pieces = Math.ceil(long.length / 4000);
    await eventually(() => world.fake.sent.length >= pieces, "the pieces");
    await rig.session.idle(5_000);
    expect(pieces).toBeGreaterThanOrEqual(3);
    // Cut at word boundaries: at most one piece more than a hard cut would give.
    expect(world.fake.sent.length).toBeGreaterThanOrEqual(pieces);
    expect(world.fake.sent.length).toBeLessThanOrEqual(pieces + 1);
    for (const piece of world.fake.sent) {
      expect(piece.conversationId).toBe(conversationId);
      expect(piece.text.length).toBeLessThanOrEqual(4000);
    }
    expect(
      world.fake.sent
        .map((p) => p.text)
        .join(" ")
        .replace(/\s+/g, " "),
    ).toBe(long);
  });

  it("the same activity three times gives one turn and one reply", async () => {
    await boot();
    for (let i = 0; i < 3; i++) expect((await say("just once", "1same")).status).toBe(200);
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.sent).toHaveLength(1);
    expect(await rig.userMessages(conversationId)).toEqual(["just once"]);
  });

  it("a body sent again under a fresh token with the same activity id and other text is not a new turn", async () => {
    await boot();
    expect((await say("the original", "1replayed")).status).toBe(200);
    expect((await say("the altered copy", "1replayed")).status).toBe(200);
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(conversationId)).toEqual(["the original"]);
    expect(world.fake.sent).toHaveLength(1);
  });

  it("renders an approval as an Adaptive Card, applies a click once, answers the invoke and updates the card", async () => {
    await boot();
    await say("please use delete_file on report.docx");
    await eventually(() => world.fake.sent.some((s) => s.actions.length > 0), "the card");
    const card = world.fake.sent.find((s) => s.actions.length > 0);
    expect(card?.actions.map((a) => a.title)).toEqual(["Approve", "Reject"]);
    expect(card?.text).toContain("delete_file");
    // Someone else clicking is refused but still gets a proper invoke answer (no retry, no error UI).
    const intruder = await world.fake.click(card?.id as string, "Approve", bob);
    expect(intruder.status).toBe(200);
    expect(JSON.parse(intruder.body)).toMatchObject({
      statusCode: 200,
      type: "application/vnd.microsoft.activity.message",
    });
    const click = await world.fake.click(card?.id as string, "Approve", alice);
    expect(click.status).toBe(200);
    expect(JSON.parse(click.body)).toEqual({
      statusCode: 200,
      type: "application/vnd.microsoft.activity.message",
      value: "Recorded: approve.",
    });
    await eventually(() => rig.executed.length > 0, "the approved tool running");
    const again = await world.fake.click(card?.id as string, "Approve", alice);
    expect(JSON.parse(again.body).value).toBe("This request was already decided.");
    await eventually(() => (card?.updates ?? 0) > 0, "the card update");
    await rig.session.idle(5_000);
    expect(rig.executed).toHaveLength(1);
    expect(card?.actions).toEqual([]);
    expect(card?.text).toContain("Approve");
  });

  it("answers a channel message that @mentions the bot in its thread, and ignores one that does not", async () => {
    await boot();
    const thread = "19:general@thread.tacv2;messageid=1700000000001";
    const post = (text: string, mention: boolean) => {
      const activity = world.fake.messageActivity({
        conversationId: thread,
        from: alice,
        text,
        conversationType: "channel",
      });
      const bot = activity.recipient as { id: string; name: string };
      if (mention) activity.entities = [{ type: "mention", text: `<at>${bot.name}</at>`, mentioned: bot }];
      return world.fake.deliver(activity);
    };
    expect((await post("hi all", false)).status).toBe(200);
    expect((await post("<at>agentsvc</at> what changed?", true)).status).toBe(200);
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(thread)).toEqual(["what changed?"]);
    expect(world.fake.sent.map((s) => s.conversationId)).toEqual([thread]);
  });

  it("a reply answered 429 and then 500 reaches the conversation exactly once", async () => {
    await boot();
    world.fake.failNext(429, 0.05);
    world.fake.failNext(500);
    await say("hello through trouble");
    await eventually(() => world.fake.sent.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.calls).toBe(3);
    expect(world.fake.sent).toHaveLength(1);
  });

  it("a connector refusing the token gets a fresh token and the reply still goes out once", async () => {
    await boot();
    await say("first");
    await eventually(() => world.fake.sent.length === 1, "the first reply");
    expect(world.fake.tokenRequests).toBe(1);
    world.fake.failNext(401);
    await say("second");
    await eventually(() => world.fake.sent.length === 2, "the second reply");
    await rig.session.idle(5_000);
    expect(world.fake.tokenRequests).toBe(2);
    expect(world.fake.sent).toHaveLength(2);
  });
});
