// A send retried after its answer was lost (the POST reached Discord, the reply did not come back)
// must not post twice. Create Message (https://discord.com/developers/docs/resources/message#create-message):
// `nonce` is "an integer or a string of at most 25 characters"; with `enforce_nonce: true`, "if
// another message was created by the same author with the same nonce, that message will be returned
// and no new message will be created". The testkit fake honours both.
import type { InteractionRequest, OutboundFile } from "@agentsvc/adapter-kit";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { DiscordGateway } from "../src/index.js";
import { CHANNELS } from "./harness.js";
import { expectOnceEach, type Rigged, say, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const CREATE = "^POST /channels/\\d+/messages$";
const channel = CHANNELS[1];

/** The message creates the bot made, in order. */
function creates(x: Rigged) {
  return x.h.fake.calls.filter((c) => c.method === "POST" && /^\/channels\/\d+\/messages$/.test(c.path));
}

/** The JSON params of a create (a multipart create holds them in `payload_json`). */
function params(body: Record<string, unknown>): Record<string, unknown> {
  const json = body.payload_json;
  return typeof json === "object" && json !== null ? (json as Record<string, unknown>) : body;
}

function approval(requestId: string): InteractionRequest {
  return {
    requestId,
    threadId: `discord:${channel}`,
    gateway: "discord",
    thread: channel,
    allowedDecisions: ["approve", "reject"],
    toolName: "delete_file",
    arguments: {},
    prompt: `May I delete a file? (${requestId})`,
    createdAt: Date.now(),
  };
}

function file(name: string): OutboundFile {
  const bytes = Buffer.from(`bytes of ${name}`);
  return {
    blob: "0".repeat(64),
    name,
    contentType: "text/plain",
    size: bytes.length,
    bytes: async () => bytes,
  };
}

describe("discord: one message per outbox piece, however often it is sent", () => {
  it("a reply whose POST reached Discord but lost its answer is retried with the same nonce and shows once", async () => {
    r = await startRig();
    r.h.fake.failNext(CREATE, { dropAnswer: true });
    say(r, "answer lost la1");
    const x = r;
    // Sent once its retry was answered (the first answer never came).
    await eventually(async () => {
      const rows = await x.rig.store.outbox.list("discord", CHANNELS[0]);
      return rows.length > 0 && rows.every((o) => o.status === "sent");
    }, "the reply marked sent");
    await expectOnceEach(r, ["la1"]);
    const posts = creates(r).filter((c) => String(c.body.content).includes("la1"));
    expect(posts.length).toBeGreaterThanOrEqual(2);
    const [first, ...retries] = posts.map((c) => params(c.body));
    expect(first?.enforce_nonce).toBe(true);
    expect(typeof first?.nonce).toBe("string");
    for (const retry of retries) expect(retry).toMatchObject({ nonce: first?.nonce, enforce_nonce: true });
  });

  it("a reply, an approval card and a file sent twice under one idempotency key make one message each; another key makes another", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    // Outbox keys are up to 1,024 characters; Discord takes a nonce of 25.
    const long = { idempotencyKey: `piece:${"k".repeat(1_000)}`, attempt: 1 };
    const a = await gw.send(channel, "reply n1", long);
    const b = await gw.send(channel, "reply n1 again", { ...long, attempt: 2 });
    const c = await gw.send(channel, "reply n2", { idempotencyKey: `piece:${"k".repeat(999)}j`, attempt: 1 });
    const card = await gw.requestDecision(approval("req-n3"), { idempotencyKey: "approval:n3", attempt: 1 });
    const cardAgain = await gw.requestDecision(approval("req-n3"), {
      idempotencyKey: "approval:n3",
      attempt: 2,
    });
    const sent = await gw.sendFile(channel, file("n4.txt"), { idempotencyKey: "file:n4", attempt: 1 });
    const sentAgain = await gw.sendFile(channel, file("n4.txt"), { idempotencyKey: "file:n4", attempt: 2 });
    expect(b.messageId).toBe(a.messageId);
    expect(c.messageId).not.toBe(a.messageId);
    expect(cardAgain.messageId).toBe(card.messageId);
    expect(sentAgain.messageId).toBe(sent.messageId);
    const shown = r.h.fake.rest.botMessages.filter((m) => m.channelId === channel);
    expect(shown.map((m) => m.content)).toEqual([
      "reply n1",
      "reply n2",
      "May I delete a file? (req-n3)",
      "",
    ]);
    for (const post of creates(r)) {
      const p = params(post.body);
      expect(p.enforce_nonce).toBe(true);
      expect(String(p.nonce).length).toBeLessThanOrEqual(25);
    }
  });

  it("two streamed replies in one channel are two messages (a preview's nonce is its own stream's)", async () => {
    r = await startRig();
    const gw = r.rig.gateway as DiscordGateway;
    const first = await gw.stream(channel, {}).update("first preview");
    await gw.finishDraft(channel, first ?? {}, "first reply", { idempotencyKey: "s:1", attempt: 1 });
    const second = await gw.stream(channel, {}).update("second preview");
    expect(second?.messageId).not.toBe(first?.messageId);
    await gw.finishDraft(channel, second ?? {}, "second reply", { idempotencyKey: "s:2", attempt: 1 });
    await eventually(
      () => r?.h.fake.rest.botMessages.filter((m) => m.channelId === channel).length === 2,
      "two messages",
    );
    expect(r.h.fake.rest.botMessages.filter((m) => m.channelId === channel).map((m) => m.content)).toEqual([
      "first reply",
      "second reply",
    ]);
  });
});
