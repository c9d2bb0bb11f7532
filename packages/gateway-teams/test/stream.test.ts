// Replies stream into a one-on-one Teams chat with the streaming protocol: typing activities with
// one streamId, increasing streamSequence and growing text, then one final message.
import { eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { alice, type TeamsWorld, teamsWorld } from "./harness.js";

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
  it("a personal chat sees one stream grow with increasing sequence numbers, then exactly one final message", async () => {
    const w = await teamsWorld();
    world = w;
    rig = await startSessionRig(w.build(), { replyText: REPLY, tokenDelayMs: 100, streamIntervalMs: 500 });
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
});
