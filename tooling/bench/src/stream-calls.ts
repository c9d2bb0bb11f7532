// Platform calls per streamed reply: a real session over a durable SQLite store, the Discord
// adapter against the testkit fake, and the demo model writing 20 tokens at 100 ms. Each reply
// counts the REST calls that post or edit its message, streaming on (update interval 1 s, the
// default) beside the same replies with `streaming: false` (one post each).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { createGateway } from "@agentsvc/gateway-discord";
import { createGatewaySession, GatewayRegistry } from "@agentsvc/session-core";
import { DiscordFake, eventually } from "@agentsvc/testkit";
import { pino } from "pino";
import { fmt, type Row } from "./stats.ts";

const REPLIES = 3;
const TEXT = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(" ");

async function callsPerReply(streaming: boolean): Promise<{ calls: number; limited: number }> {
  const fake = await DiscordFake.start();
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-stream-"));
  const db = ChatDb.open({ appRoot: root, path: "./chat.db" });
  const logger = pino({ level: "silent" });
  const gateway = createGateway({
    name: "discord",
    botTokenEnvVar: "DISCORD_TOKEN",
    env: { DISCORD_TOKEN: fake.token },
    apiBaseUrl: fake.apiBaseUrl,
  });
  const registry = new GatewayRegistry(logger);
  registry.register(gateway);
  const agent = defineAgent({
    name: "bench",
    model: { provider: "demo", script: [{ text: TEXT }], tokenDelayMs: 100 },
  });
  const runs = new RunManager({
    agent,
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger,
  });
  await runs.ready();
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    entries: [{ name: "discord", type: "discord", streaming }],
    loggers: { root: logger },
  });
  await session.start();
  try {
    await eventually(() => fake.sessions.current !== undefined, "the bot connected", 10_000);
    for (let i = 0; i < REPLIES; i++) {
      const channelId = `80000000000000010${i}`;
      fake.sessions.userSays({ channelId, authorId: "700000000000000001", content: `hello ${i}` });
      await eventually(
        () => fake.rest.botMessages.some((m) => m.channelId === channelId && m.content === TEXT),
        "the reply",
        20_000,
      );
    }
    await session.idle(5_000);
    const calls = fake.calls.filter((c) => /\/channels\/\d+\/messages(\/\d+)?$/.test(c.path)).length;
    return { calls: calls / REPLIES, limited: fake.rest.rateLimited.length };
  } finally {
    await session.stop(2_000);
    db.close();
    await fake.close();
  }
}

export async function benchStreamCalls(): Promise<Row[]> {
  const plain = await callsPerReply(false);
  const streamed = await callsPerReply(true);
  return [
    {
      metric: "Discord REST calls per reply (20 tokens at 100 ms, 1 s interval)",
      value: fmt(streamed.calls, 1),
      baseline: `${fmt(plain.calls, 1)} (streaming: false)`,
      ratio: `${fmt(streamed.calls / plain.calls, 1)}x`,
      target: `<= 1 per second of reply + 1; 429s: ${streamed.limited}`,
    },
  ];
}
