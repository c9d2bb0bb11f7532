// What the session reads from the gateway before using it: a push gateway (it connects out, nothing
// to poll) of type discord, with threads (channels), buttons, message edits, streamed replies and
// typing, and Discord's 2,000-character message limit (Create Message, `content`).
import { expect, it } from "vitest";
import { createGateway, MESSAGE_LIMIT } from "../src/index.js";

it("declares a push gateway of type discord with threads, buttons, edits, streaming and typing, and 2,000-character messages", () => {
  const gw = createGateway({ name: "discord", botTokenEnvVar: "DISCORD_TOKEN" });
  expect({ kind: gw.kind, type: gw.type, name: gw.name, messageLimit: gw.messageLimit }).toEqual({
    kind: "push",
    type: "discord",
    name: "discord",
    messageLimit: 2000,
  });
  expect(MESSAGE_LIMIT).toBe(2000);
  expect(gw.capabilities).toEqual({
    threads: true,
    interactiveActions: true,
    editing: true,
    streaming: true,
    typing: true,
  });
});
