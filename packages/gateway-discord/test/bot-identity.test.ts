// Who the bot is (its user id, which a guild message must mention) comes from GET /users/@me at
// start (https://discord.com/developers/docs/resources/user#get-current-user) and from READY's
// `user` (https://discord.com/developers/docs/events/gateway-events#ready): either one is enough.
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { createGateway, type DiscordGateway } from "../src/index.js";
import { CHANNELS, discordHarness } from "./harness.js";
import { expectOnceEach, type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const mentioned = ({ h }: Rigged, text: string) =>
  h.fake.sessions.userSays({
    channelId: CHANNELS[0],
    guildId: "600000000000000001",
    authorId: h.userId("user-1"),
    content: text,
    mention: true,
  });

it("GET /users/@me failing at start, the bot learns its id from READY: a mention in a guild reaches the agent", async () => {
  const h = await discordHarness();
  h.fake.failNext("^GET /users/@me$", { status: 500 });
  const rig = new ContractRig(h);
  r = { h, rig };
  await rig.start();
  await eventually(() => h.fake.sessions.current !== undefined, "READY");
  expect(h.fake.calls.some((c) => c.method === "GET" && c.path === "/users/@me")).toBe(true);
  mentioned(r, "who am i w1");
  await expectOnceEach(r, ["w1"]);
});

it("a restart that resumes the session (RESUMED, no READY) knows the bot from GET /users/@me", async () => {
  r = await startRig();
  const x = r;
  await x.rig.stop();
  await x.rig.start();
  await eventually(() => x.h.fake.connections.some((c) => c.resumedSession !== undefined), "the resume");
  mentioned(x, "still me w2");
  await expectOnceEach(x, ["w2"]);
});

it("a gateway never started has not halted, and stops without error", async () => {
  const gw = createGateway({ name: "discord", botTokenEnvVar: "DISCORD_TOKEN" }) as DiscordGateway;
  expect(gw.halted).toBe(false);
  await expect(gw.stop()).resolves.toBeUndefined();
});
