// Replies stream into a one-on-one Teams chat with the streaming protocol: typing activities with
// one streamId, increasing streamSequence and growing text, then one final message.
import { eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { alice, SECRETS, type TeamsWorld, teamsWorld } from "./harness.js";

/** 20 tokens; the demo model streams one every 100 ms. */
const REPLY = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(" ");
const conversationId = "a:1stream";
let world: TeamsWorld | undefined;
let rig: SessionRig | undefined;

afterEach(async () => {
  await rig?.stop();
  await world?.close();
  rig = undefined;
  world = undefined;
});

describe("teams: streamed replies", () => {
  it("a personal chat sees one stream grow with increasing sequence numbers, then exactly one final message, at the default 1 s interval", async () => {
    const w = await teamsWorld();
    world = w;
    // 20 tokens at 200 ms: 4 s of writing, so about four updates a second apart.
    rig = await startSessionRig(w.build(), { replyText: REPLY, tokenDelayMs: 200 });
    expect((await w.fake.deliverMessage({ conversationId, from: alice, text: "hi" })).status).toBe(200);
    await eventually(() => w.fake.streams.some((s) => s.final !== undefined), "the final message", 10_000);
    await rig.session.idle(5_000);
    expect(w.fake.streamRefusals).toEqual([]);
    expect(w.fake.streams).toHaveLength(1);
    const stream = w.fake.streams[0] as (typeof w.fake.streams)[number];
    expect(stream.final).toBe(REPLY);
    expect(stream.updates.length).toBeGreaterThanOrEqual(3);
    stream.updates.forEach((u, i) => {
      expect(u.sequence).toBe(i + 1);
      if (i > 0)
        expect(u.text.length).toBeGreaterThan((stream.updates[i - 1] as { text: string }).text.length);
    });
    expect(w.fake.sent.map((s) => s.text)).toEqual([REPLY]);
  });

  it("the fake refuses what Teams refuses: changed content, a sequence that does not grow, a second stream", async () => {
    const w = await teamsWorld();
    world = w;
    w.fake.messageActivity({ conversationId, from: alice, text: "the chat is personal" });
    const grant = await fetch(`${w.fake.loginBaseUrl}/botframework.com/oauth2/v2.0/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: SECRETS.TEAMS_TEST_APP_ID,
        client_secret: SECRETS.TEAMS_TEST_APP_PASSWORD,
        scope: "https://api.botframework.com/.default",
      }),
    });
    const { access_token: token } = (await grant.json()) as { access_token: string };
    const post = (text: string, sequence: number, streamId?: string) =>
      fetch(`${w.fake.serviceUrl}v3/conversations/${encodeURIComponent(conversationId)}/activities`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          type: "typing",
          text,
          entities: [
            {
              type: "streaminfo",
              streamType: "streaming",
              streamSequence: sequence,
              ...(streamId ? { streamId } : {}),
            },
          ],
        }),
      });
    const first = await post("The brown", 1);
    expect(first.status).toBe(201);
    const { id } = (await first.json()) as { id: string };
    // The example of Teams' docs: "The brown" then "Hello" is refused.
    expect((await post("Hello", 2, id)).status).toBe(400);
    expect((await post("The brown fox", 1, id)).status).toBe(400);
    expect((await post("Another", 1)).status).toBe(400);
    expect((await post("The brown fox", 2, id)).status).toBe(201);
    expect(w.fake.streamRefusals).toHaveLength(3);
  });
});

describe("teams: a streamed reply cut short", () => {
  it("a turn cancelled mid-stream finalises the stream with what was said plus (stopped), at the default 1 s interval", async () => {
    const w = await teamsWorld();
    world = w;
    rig = await startSessionRig(w.build(), { replyText: REPLY, tokenDelayMs: 100 });
    expect((await w.fake.deliverMessage({ conversationId, from: alice, text: "hi" })).status).toBe(200);
    await eventually(() => (w.fake.streams[0]?.updates.length ?? 0) >= 2, "the stream growing", 10_000);
    expect(await rig.cancelRunning()).toBe(1);
    await eventually(() => w.fake.streams[0]?.final !== undefined, "the stream finalised", 10_000);
    await rig.session.idle(5_000);
    expect(w.fake.streamRefusals).toEqual([]);
    expect(w.fake.streams).toHaveLength(1);
    const final = w.fake.streams[0]?.final as string;
    expect(final.endsWith("\n\n(stopped)")).toBe(true);
    const said = final.slice(0, -"\n\n(stopped)".length);
    expect(said.length).toBeGreaterThan(0);
    expect(said.length).toBeLessThan(REPLY.length);
    expect(REPLY.startsWith(said)).toBe(true);
    expect(w.fake.sent.map((s) => s.text)).toEqual([final]);
  });
});

describe("teams: a preview update the session gives up on", () => {
  it("is aborted by the update's signal: the connector request it holds is closed and the update rejects", async () => {
    const w = await teamsWorld();
    world = w;
    const gateway = w.build();
    rig = await startSessionRig(gateway);
    // The connector takes the update and never answers (a hung call).
    w.fake.holdStreamUpdates = true;
    const stream = gateway.stream(conversationId, {
      meta: { conversationType: "personal", serviceUrl: w.fake.serviceUrl },
    });
    const controller = new AbortController();
    const outcome = stream?.update("The brown", controller.signal).then(
      () => "answered",
      (err: Error) => err.name,
    );
    await eventually(() => w.fake.heldUpdates.length === 1, "the update held by the connector", 10_000);
    expect(w.fake.heldUpdates[0]?.abandoned).toBe(false);
    controller.abort();
    expect(await outcome).toBe("AbortError");
    await eventually(() => w.fake.heldUpdates[0]?.abandoned === true, "the held request closed", 10_000);
    expect(w.fake.streams).toEqual([]);
  });
});

describe("teams: a stream past Teams' two-minute limit", () => {
  it("whose final message Teams refuses with 403 ContentStreamNotAllowed (exceeded streaming time) still delivers the whole reply as a normal message", async () => {
    const w = await teamsWorld();
    world = w;
    // The connector's documented limit is two minutes; here the stream is over after 1.5 s of a 4 s reply.
    w.fake.streamTimeLimitMs = 1_500;
    rig = await startSessionRig(w.build(), { replyText: REPLY, tokenDelayMs: 200 });
    expect((await w.fake.deliverMessage({ conversationId, from: alice, text: "hi" })).status).toBe(200);
    await eventually(() => w.fake.sent.length === 1, "the reply", 15_000);
    await rig.session.idle(5_000);
    expect(w.fake.streams).toHaveLength(1);
    expect(w.fake.streams[0]?.timedOutAt).toBeDefined();
    expect(w.fake.streams[0]?.final).toBeUndefined();
    expect(w.fake.streamRefusals).toContain("the stream exceeded its streaming time");
    const [reply] = w.fake.sent;
    expect(reply?.text).toBe(REPLY);
    expect(reply?.activity.entities).toBeUndefined();
    expect((await rig.store.outbox.list("teams", conversationId)).map((r) => r.status)).not.toContain("dead");
  });
});

describe("teams: a stream whose first request was refused", () => {
  it("starts again at streamSequence 1 (Teams refuses a first update numbered otherwise)", async () => {
    const w = await teamsWorld();
    world = w;
    rig = await startSessionRig(w.build(), { replyText: REPLY, tokenDelayMs: 200 });
    // The first connector call of the turn is the first streaming update: throttled.
    w.fake.failNext(429, 0.05);
    expect((await w.fake.deliverMessage({ conversationId, from: alice, text: "hi" })).status).toBe(200);
    await eventually(() => w.fake.streams.some((s) => s.final !== undefined), "the final message", 15_000);
    await rig.session.idle(5_000);
    expect(w.fake.streamRefusals).toEqual([]);
    expect(w.fake.streams).toHaveLength(1);
    expect(w.fake.streams[0]?.updates[0]?.sequence).toBe(1);
    expect(w.fake.sent.map((s) => s.text)).toEqual([REPLY]);
  });
});
