// The platform side for the contract suite and the connection tests: one Discord fake behind
// every gateway instance the harness builds (a restart builds a new one against the same fake).
import { encodeDecision } from "@agentsvc/adapter-kit";
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import {
  captureLogs,
  DiscordFake,
  type DiscordFakeOptions,
  type LogLine,
  eventually,
  within,
} from "@agentsvc/testkit";
import { DEFAULT_WATCHDOG_MS } from "../src/gateway.js";
import { createGateway, type DiscordGateway, type DiscordGatewayOptions } from "../src/index.js";

export interface DiscordHarness extends GatewayHarness {
  fake: DiscordFake;
  logs: LogLine[];
  userId(author: string): string;
  /** The gateways built so far (the last one is running). */
  built: DiscordGateway[];
}

/** What Discord's Hello announces today (gateway docs, Hello event). */
export const DISCORD_HEARTBEAT_INTERVAL_MS = 41_250;
/** Every clock of a test (Discord's and the adapter's) is divided by the same factor. */
export const SCALE = 1 / 200;

export const CHANNELS: [string, string] = ["800000000000000001", "800000000000000002"];

export async function discordHarness(
  overrides: Partial<DiscordGatewayOptions> = {},
  fakeOptions: DiscordFakeOptions = {},
): Promise<DiscordHarness> {
  const fake = await DiscordFake.start({
    heartbeatIntervalMs: DISCORD_HEARTBEAT_INTERVAL_MS * SCALE,
    ...fakeOptions,
  });
  const { logger, lines } = captureLogs();
  const users = new Map<string, string>();
  const messageIds = new Map<string, string>();
  const built: DiscordHarness["built"] = [];
  const userId = (author: string) => {
    if (!users.has(author)) users.set(author, `70000000000000000${users.size + 1}`);
    return users.get(author) as string;
  };
  return {
    fake,
    get logs() {
      return lines();
    },
    userId,
    built,
    threads: CHANNELS,
    gateway: () => {
      const gateway = createGateway({
        name: "discord",
        botTokenEnvVar: "DISCORD_TOKEN",
        env: { DISCORD_TOKEN: fake.token },
        apiBaseUrl: fake.apiBaseUrl,
        watchdogMs: DEFAULT_WATCHDOG_MS * SCALE,
        backoff: { baseMs: 20, maxMs: 200 },
        jitter: () => 0.5,
        invalidSessionDelayMs: [10, 30],
        ...overrides,
      }) as DiscordGateway;
      const start = gateway.start.bind(gateway);
      gateway.start = (ctx) => start({ ...ctx, logger: logger.child({ name: "gateway-discord" }) });
      built.push(gateway);
      return gateway;
    },
    inject: async (m) => {
      await eventually(() => fake.sessions.current !== undefined, "a gateway session", 3_000);
      if (!messageIds.has(m.id)) messageIds.set(m.id, fake.nextId());
      const { acked } = fake.sessions.userSays({
        channelId: m.thread,
        authorId: userId(m.author),
        content: m.text,
        messageId: messageIds.get(m.id) as string,
      });
      await within(acked, 3_000, `a heartbeat acknowledging ${m.id}`);
    },
    sent: async () => fake.rest.botMessages.map((b) => ({ thread: b.channelId, text: b.content })),
    choose: async (request, decision, author) => {
      const id = encodeDecision(request.requestId, decision);
      const card = fake.rest.botMessages.find((b) =>
        b.components?.some((r) => r.components?.some((c) => c.custom_id === id)),
      );
      if (!card) throw new Error(`discord shows no button for ${request.requestId}`);
      const { interactionId } = fake.sessions.press({
        messageId: card.id,
        customId: id,
        userId: userId(author),
      });
      await eventually(
        () => fake.rest.callbacks.get(interactionId) !== undefined,
        "the interaction callback",
        3_000,
      );
    },
    failNext: (status) => {
      fake.failNext(
        "^POST /channels/\\d+/messages$",
        status === 429 ? { status: 429, retryAfter: 0.3 } : { status: 500 },
      );
    },
    close: () => fake.close(),
  };
}
