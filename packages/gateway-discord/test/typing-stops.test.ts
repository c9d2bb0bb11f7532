// Discord shows typing for 10 s or until the bot posts
// (https://discord.com/developers/docs/resources/channel#trigger-typing-indicator): the gateway
// repeats it until its next message in the channel, an approval card included, and not after it stopped.
import type { InteractionRequest } from "@agentsvc/adapter-kit";
import { eventually } from "@agentsvc/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { DiscordGateway } from "../src/index.js";
import { CHANNELS, SCALE } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const channel = CHANNELS[1];
const INTERVAL_MS = 8_000 * SCALE;

function request(requestId: string): InteractionRequest {
  return {
    requestId,
    threadId: `discord:${channel}`,
    gateway: "discord",
    thread: channel,
    allowedDecisions: ["approve", "reject"],
    toolName: "delete_file",
    arguments: {},
    prompt: "May I?",
    createdAt: Date.now(),
  };
}

describe("discord typing", () => {
  it("stops when an approval card is posted in the channel", async () => {
    r = await startRig({ typingIntervalMs: INTERVAL_MS });
    const x = r;
    const gw = x.rig.gateway as DiscordGateway;
    const typing = () => x.h.fake.rest.typing.filter((t) => t.channelId === channel).length;
    await gw.startTyping(channel);
    await eventually(() => typing() >= 2, "typing repeated");
    await gw.requestDecision(request("req-t1"), { idempotencyKey: "card-t1", attempt: 1 });
    expect(gw.typingThreadCount).toBe(0);
    const after = typing();
    await new Promise((res) => setTimeout(res, 4 * INTERVAL_MS));
    expect(typing()).toBe(after);
  });

  it("stops when a file is posted in the channel", async () => {
    r = await startRig({ typingIntervalMs: INTERVAL_MS });
    const gw = r.rig.gateway as DiscordGateway;
    await gw.startTyping(channel);
    expect(gw.typingThreadCount).toBe(1);
    const bytes = Buffer.from("%PDF-1.7\n");
    const pdf = {
      blob: "0".repeat(64),
      name: "notes.pdf",
      contentType: "application/pdf",
      size: bytes.length,
    };
    await gw.sendFile(
      channel,
      { ...pdf, bytes: async () => bytes },
      { idempotencyKey: "file-t1", attempt: 1 },
    );
    expect(gw.typingThreadCount).toBe(0);
  });

  it("stops when a streamed reply's draft is finished in place (an edit, no new message)", async () => {
    r = await startRig({ typingIntervalMs: INTERVAL_MS });
    const gw = r.rig.gateway as DiscordGateway;
    const draft = await gw.stream(channel, {}).update("Half of it");
    await gw.startTyping(channel);
    expect(gw.typingThreadCount).toBe(1);
    await gw.finishDraft(channel, draft ?? {}, "All of it.", { idempotencyKey: "final-t1", attempt: 1 });
    expect(r.h.fake.rest.botMessages.at(-1)).toMatchObject({ id: draft?.messageId, content: "All of it." });
    expect(gw.typingThreadCount).toBe(0);
  });

  it("asked for after the gateway stopped, posts nothing", async () => {
    r = await startRig({ typingIntervalMs: INTERVAL_MS });
    const gw = r.rig.gateway as DiscordGateway;
    await gw.stop();
    await gw.startTyping(channel);
    expect(gw.typingThreadCount).toBe(0);
    expect(r.h.fake.rest.typing).toEqual([]);
  });
});
