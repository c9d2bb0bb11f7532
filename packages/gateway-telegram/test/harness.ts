// The platform side for the contract suite and the fault tests: one Telegram fake behind every
// gateway instance the harness builds (a restart builds a new one against the same fake).
import { encodeDecision } from "@agentsvc/adapter-kit";
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { captureLogs, type LogLine, TelegramFake, within } from "@agentsvc/testkit";
import { createGateway, type TelegramGatewayOptions } from "../src/index.js";

export interface TelegramHarness extends GatewayHarness {
  fake: TelegramFake;
  /** Telegram user id of a contract author name. */
  userId(author: string): number;
  /** What the gateways wrote to their logger, one parsed pino record each. */
  logs: LogLine[];
}

export async function telegramHarness(
  overrides: Partial<TelegramGatewayOptions> = {},
): Promise<TelegramHarness> {
  const fake = await TelegramFake.start();
  const users = new Map<string, number>();
  const messageIds = new Map<string, number>();
  const userId = (author: string) => {
    if (!users.has(author)) users.set(author, 5_000 + users.size);
    return users.get(author) as number;
  };
  const { logger, lines } = captureLogs();
  return {
    fake,
    userId,
    get logs() {
      return lines();
    },
    threads: ["101", "102"],
    gateway: () => {
      const gateway = createGateway({
        name: "telegram",
        botTokenEnvVar: "TG_TOKEN",
        env: { TG_TOKEN: fake.token },
        apiBaseUrl: fake.url,
        pollTimeoutSeconds: 1,
        pollGraceMs: 500,
        backoff: { baseMs: 20, maxMs: 200 },
        typingIntervalMs: 100,
        ...overrides,
      });
      // The gateway's own log goes to `logs` so tests can read what it told the operator.
      const start = gateway.start.bind(gateway);
      gateway.start = (ctx) => start({ ...ctx, logger: logger.child({ name: "gateway-telegram" }) });
      return gateway;
    },
    inject: async (m) => {
      // The same contract id is the same Telegram message (a redelivery), new ids are new messages.
      if (!messageIds.has(m.id)) messageIds.set(m.id, 1 + messageIds.size);
      const updateId = fake.chat.userSends({
        chatId: Number(m.thread),
        text: m.text,
        from: { id: userId(m.author) },
        messageId: messageIds.get(m.id) as number,
      });
      await within(fake.confirmed(updateId), 3_000, `confirmation of update ${updateId}`);
    },
    sent: async () =>
      fake.chat.botMessages.map((b) => ({
        thread: b.threadId === undefined ? String(b.chatId) : `${b.chatId}:${b.threadId}`,
        text: b.text,
      })),
    choose: async (request, decision, author) => {
      const data = encodeDecision(request.requestId, decision);
      const shown = fake.chat.botMessages.find(
        (b) =>
          String(b.chatId) === request.thread &&
          b.replyMarkup?.inline_keyboard.flat().some((k) => k.callback_data === data),
      );
      if (!shown) throw new Error(`telegram shows no button for ${request.requestId}`);
      const { updateId } = fake.chat.press({
        chatId: shown.chatId,
        messageId: shown.messageId,
        data,
        from: { id: userId(author) },
      });
      await within(fake.confirmed(updateId), 3_000, `confirmation of the button press ${updateId}`);
    },
    failNext: (status) => {
      fake.failNext("sendMessage", status === 429 ? { status: 429, retryAfter: 1 } : { status: 500 });
    },
    close: () => fake.close(),
  };
}
