// Which way a streamed reply goes, called as the session calls the gateway, against the Discord fake
// over HTTP: the first update posts the message (Create Message, replying to the user's message,
// https://discord.com/developers/docs/resources/message#create-message), later ones and the final
// text edit it (Edit Message, https://discord.com/developers/docs/resources/message#edit-message);
// a stream resumed after a restart edits the message it had; only a message that is gone (404,
// 10008 Unknown Message, https://discord.com/developers/docs/topics/opcodes-and-status-codes#json)
// is posted anew, any other failure fails the call.
import type { SendOptions } from "@agentsvc/adapter-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DiscordGateway } from "../src/index.js";
import { CHANNELS } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged;
let gateway: DiscordGateway;

beforeAll(async () => {
  r = await startRig();
  gateway = r.rig.gateway as DiscordGateway;
});

afterAll(() => stopRig(r));

const channel = CHANNELS[1];
let pieces = 0;
/** Each call is its own outbox piece (its own key: Discord returns the first message for a repeated nonce). */
const options = (): SendOptions => ({ idempotencyKey: `piece-${++pieces}`, attempt: 1 });
/** A snowflake no message of the fake has: a message deleted meanwhile. */
const GONE = "900000000000000009";

const posts = () =>
  r.h.fake.calls.filter((c) => c.method === "POST" && c.path === `/channels/${channel}/messages`);
const message = (id: unknown) => r.h.fake.rest.botMessages.find((m) => m.id === id);

describe("a streamed reply on Discord", () => {
  it("is posted as a reply to the user's message without pinging anyone, edited as it grows (also without a signal), and the final text edits it in place", async () => {
    const before = posts().length;
    const stream = gateway.stream(channel, { meta: { messageId: "123456789012345678" } });
    const ids = await stream.update("Hello");
    expect(ids?.messageId).toBeTypeOf("string");
    expect(await stream.update("Hello there")).toBeUndefined();
    expect(posts()).toHaveLength(before + 1);
    expect(posts().at(-1)?.body).toMatchObject({
      content: "Hello",
      allowed_mentions: { parse: [] },
      message_reference: { message_id: "123456789012345678" },
    });
    const result = await gateway.finishDraft(channel, ids ?? {}, "Hello there, all done.", options());
    expect(result).toEqual({ messageId: ids?.messageId });
    expect(message(ids?.messageId)).toMatchObject({ content: "Hello there, all done.", edits: 2 });
    expect(posts()).toHaveLength(before + 1);
  });

  it("resumed after a restart, edits the message it had and hands over no new id", async () => {
    const had = await gateway.send(channel, "Half", options());
    const before = posts().length;
    const stream = gateway.stream(channel, { previous: { messageId: had.messageId as string } });
    expect(await stream.update("Half of it")).toBeUndefined();
    expect(posts()).toHaveLength(before);
    expect(message(had.messageId)?.content).toBe("Half of it");
  });

  it("whose message was deleted meanwhile posts it again and hands over the new id", async () => {
    const stream = gateway.stream(channel, { previous: { messageId: GONE } });
    const ids = await stream.update("Hello again");
    expect(ids?.messageId).toBeTypeOf("string");
    expect(ids?.messageId).not.toBe(GONE);
    expect(message(ids?.messageId)?.content).toBe("Hello again");
  });

  it("an update whose edit fails for another reason fails (the session keeps its preview), and posts nothing", async () => {
    const had = await gateway.send(channel, "Half", options());
    const before = posts().length;
    const stream = gateway.stream(channel, { previous: { messageId: had.messageId as string } });
    r.h.fake.failNext(`PATCH .*/messages/${had.messageId}$`, { status: 500 });
    await expect(stream.update("Half of it")).rejects.toThrow();
    expect(posts()).toHaveLength(before);
    expect(message(had.messageId)?.content).toBe("Half");
  });

  it("an update the session already gave up on (aborted signal) edits nothing", async () => {
    const had = await gateway.send(channel, "Half", options());
    const stream = gateway.stream(channel, { previous: { messageId: had.messageId as string } });
    await expect(stream.update("Half of it", AbortSignal.abort())).rejects.toThrow();
    expect(message(had.messageId)).toMatchObject({ content: "Half", edits: 0 });
  });
});

describe("the final text of a streamed reply", () => {
  it("whose preview was deleted goes out as a new message", async () => {
    const result = await gateway.finishDraft(channel, { messageId: GONE }, "All done.", options());
    expect(message(result.messageId)?.content).toBe("All done.");
  });

  it("without a preview (none was shown) is posted", async () => {
    const before = posts().length;
    const result = await gateway.finishDraft(channel, {}, "All done at once.", options());
    expect(posts()).toHaveLength(before + 1);
    expect(message(result.messageId)?.content).toBe("All done at once.");
  });

  it("whose edit fails for another reason fails the piece (the outbox retries): no second message", async () => {
    const had = await gateway.send(channel, "Half", options());
    const before = posts().length;
    r.h.fake.failNext(`PATCH .*/messages/${had.messageId}$`, { status: 500 });
    await expect(
      gateway.finishDraft(channel, { messageId: had.messageId as string }, "All done.", options()),
    ).rejects.toThrow();
    expect(posts()).toHaveLength(before);
  });
});
