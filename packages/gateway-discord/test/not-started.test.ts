// A gateway the session has not started (or whose start failed) has no REST client: every call that
// would reach Discord fails saying so, rather than with a TypeError from inside the adapter.
import { expect, it } from "vitest";
import { createGateway, type DiscordGateway } from "../src/index.js";
import { CHANNELS } from "./harness.js";

const NOT_STARTED = /^discord gateway not started$/;

it("before start, a send, an edit and a decided card's update each fail with 'discord gateway not started'", async () => {
  const gw = createGateway({ name: "discord", botTokenEnvVar: "DISCORD_TOKEN" }) as DiscordGateway;
  const opts = { idempotencyKey: "k1", attempt: 1 };
  await expect(gw.send(CHANNELS[0], "hello", opts)).rejects.toThrow(NOT_STARTED);
  await expect(gw.edit(CHANNELS[0], "1100000000000000001", "hello")).rejects.toThrow(NOT_STARTED);
  await expect(
    gw.onDecided({
      gateway: "discord",
      thread: CHANNELS[0],
      requestId: "req-n1",
      decision: "approve",
      decidedBy: "700000000000000001",
      requestMessageId: "1100000000000000001",
    }),
  ).rejects.toThrow(NOT_STARTED);
});
