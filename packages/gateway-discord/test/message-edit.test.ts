// Edit Message (https://discord.com/developers/docs/resources/message#edit-message): PATCH the
// message's `content`; the message keeps its id and channel.
import { afterEach, expect, it } from "vitest";
import type { DiscordGateway } from "../src/index.js";
import { CHANNELS } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

it("an edit replaces the text of the message it names, in place", async () => {
  r = await startRig();
  const gw = r.rig.gateway as DiscordGateway;
  const sent = await gw.send(CHANNELS[0], "draft", { idempotencyKey: "e1", attempt: 1 });
  await gw.edit(CHANNELS[0], sent.messageId as string, "final text");
  expect(r.h.fake.rest.botMessages).toMatchObject([
    { id: sent.messageId, channelId: CHANNELS[0], content: "final text", edits: 1 },
  ]);
});
