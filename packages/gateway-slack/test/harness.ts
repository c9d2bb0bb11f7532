// The platform side for the contract suite and the fault tests: one Slack fake behind every
// gateway instance the harness builds (a restart builds a new one against the same fake).
import { encodeDecision } from "@agentsvc/adapter-kit";
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { captureLogs, type LogLine, SlackFake, type SlackFakeOptions, within } from "@agentsvc/testkit";
import { createGateway, type SlackGatewayOptions } from "../src/index.js";

export interface SlackHarness extends GatewayHarness {
  fake: SlackFake;
  logs: LogLine[];
  /** Slack user id of a contract author name. */
  userId(author: string): string;
  /** The ts the fake gave a contract message id (the same id is the same message). */
  tsOf(id: string): string;
}

export async function slackHarness(
  overrides: Partial<SlackGatewayOptions> = {},
  fakeOptions: SlackFakeOptions = {},
): Promise<SlackHarness> {
  const fake = await SlackFake.start({ ackTimeoutMs: 400, disconnectCloseMs: 1_500, ...fakeOptions });
  const { logger, lines } = captureLogs();
  const users = new Map<string, string>();
  const stamps = new Map<string, string>();
  const userId = (author: string) => {
    if (!users.has(author)) users.set(author, `U${String(users.size + 1).padStart(4, "0")}`);
    return users.get(author) as string;
  };
  const tsOf = (id: string) => {
    if (!stamps.has(id)) stamps.set(id, fake.workspace.nextTs());
    return stamps.get(id) as string;
  };
  return {
    fake,
    get logs() {
      return lines();
    },
    userId,
    tsOf,
    threads: ["D0001", "D0002"],
    gateway: () => {
      const gateway = createGateway({
        name: "slack",
        botTokenEnvVar: "SLACK_BOT",
        appTokenEnvVar: "SLACK_APP",
        env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
        apiBaseUrl: fake.apiBaseUrl,
        watchdogMs: 600,
        pingIntervalMs: 150,
        helloTimeoutMs: 2_000,
        backoff: { baseMs: 20, maxMs: 200 },
        ...overrides,
      });
      const start = gateway.start.bind(gateway);
      gateway.start = (ctx) => start({ ...ctx, logger: logger.child({ name: "gateway-slack" }) });
      return gateway;
    },
    inject: async (m) => {
      const { acked } = fake.workspace.userSays({
        channel: m.thread,
        user: userId(m.author),
        text: m.text,
        ts: tsOf(m.id),
      });
      await within(acked, 3_000, `acknowledgement of ${m.id}`);
    },
    sent: async () =>
      fake.workspace.botMessages.map((b) => ({
        thread: b.threadTs ? `${b.channel}:${b.threadTs}` : b.channel,
        text: b.text,
      })),
    choose: async (request, decision, author) => {
      await within(
        fake.workspace.press({ value: encodeDecision(request.requestId, decision), user: userId(author) }),
        3_000,
        "the press ack",
      );
    },
    failNext: (status) => {
      fake.failNext("chat.postMessage", status === 429 ? { status: 429, retryAfter: 1 } : { status: 500 });
    },
    close: () => fake.close(),
  };
}
