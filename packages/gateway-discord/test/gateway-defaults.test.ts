// The clocks an entry that sets none gets: the silence watchdog checks every 10 s (a third of 30 s),
// typing is posted again every 8 s (Discord shows it for 10 s,
// https://discord.com/developers/docs/resources/channel#trigger-typing-indicator), the first
// heartbeat waits a random part of Hello's interval (https://discord.com/developers/docs/events/gateway#sending-heartbeats),
// a failed connect is retried after 1 s (+ up to 20%), and Invalid Session d:false waits 1-5 s
// ("a random amount of time—between 1 and 5 seconds",
// https://discord.com/developers/docs/events/gateway-events#invalid-session).
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import type { DiscordGateway } from "../src/index.js";
import { CHANNELS, DISCORD_HEARTBEAT_INTERVAL_MS, discordHarness, SCALE } from "./harness.js";
import { type Rigged, recordScheduling, stopRig, logged } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

/** The harness's clocks taken away: the gateway's own defaults apply. */
const DEFAULTS = {
  watchdogMs: undefined,
  backoff: undefined,
  jitter: undefined,
  invalidSessionDelayMs: undefined,
};

it("an entry without clocks: watchdog every 10 s, heartbeat within Hello's interval, typing every 8 s, a failed connect retried after 1-1.2 s, Invalid Session waits 1-5 s", async () => {
  const h = await discordHarness(DEFAULTS);
  const scheduled = recordScheduling(h);
  h.fake.failNext("^GET /gateway/bot$", { status: 500 });
  const rig = new ContractRig(h);
  r = { h, rig };
  await rig.start();
  const retry = await logged(r, "could not connect to the gateway; retrying");
  expect(retry.retryInMs).toBeGreaterThanOrEqual(1_000);
  expect(retry.retryInMs).toBeLessThanOrEqual(1_200);
  await eventually(() => h.fake.sessions.current !== undefined, "READY after the retry", 5_000);
  expect(scheduled.find((t) => t.kind === "every")).toEqual({ kind: "every", name: "watchdog", ms: 10_000 });
  const beat = scheduled.find((t) => t.name === "heartbeat");
  expect(beat?.ms).toBeGreaterThanOrEqual(0);
  expect(beat?.ms).toBeLessThan(DISCORD_HEARTBEAT_INTERVAL_MS * SCALE);

  await (rig.gateway as DiscordGateway).startTyping(CHANNELS[1]);
  expect(scheduled.find((t) => t.name === `typing:${CHANNELS[1]}`)?.ms).toBe(8_000);

  h.fake.sessions.send({ op: 9, d: false });
  const invalid = await logged(r, "invalid session (not resumable); identifying afresh");
  expect(invalid.retryInMs).toBeGreaterThanOrEqual(1_000);
  expect(invalid.retryInMs).toBeLessThanOrEqual(5_000);
});
