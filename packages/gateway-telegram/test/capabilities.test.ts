// What the gateway tells the session it can do (adapter-kit's GatewayCapabilities): the session reads
// these flags to choose its way. Telegram chats and forum topics are reply targets of their own
// (threads: a second approval elsewhere does not replace an open one), inline keyboards carry
// decisions, sendMessageDraft or send-then-edit stream a reply, and sendChatAction shows typing.
import { expect, it } from "vitest";
import { createGateway } from "../src/index.js";

it("declares threads, buttons, streaming and typing to the session", () => {
  const gateway = createGateway({ name: "telegram", botTokenEnvVar: "TELEGRAM_BOT_TOKEN" });
  expect(gateway.capabilities).toMatchObject({
    threads: true,
    interactiveActions: true,
    streaming: true,
    typing: true,
  });
});
