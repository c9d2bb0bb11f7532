// A Mattermost entry's channel-wide mentions through the built bin: by default a reply repeating a
// visitor's `@channel` posts it broken (a zero-width joiner after the `@`, so Mattermost notifies
// nobody with the bot's permission), and `allowChannelMentions: true` in the entry's file posts it as
// written. The demo model quotes the visitor's message, as a model asked to repeat it would.
import { freePort, eventually, MattermostFake, within } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { linkPackages, tempDir, writeFiles } from "./helpers.js";

const ZWJ = "\u200d";
const TOWN = "townsquare0000000000000000";
const EVE = "eve00000000000000000000000";

const running: { fake: MattermostFake; served: Served }[] = [];

afterAll(async () => {
  for (const r of running) {
    await r.served.stop();
    await r.fake.close();
  }
});

/** A project with one Mattermost entry (`extra` lines added to its file), started by the bin. */
async function startBot(extra: string) {
  const fake = await MattermostFake.start();
  fake.channels.set(TOWN, "O");
  const port = await freePort();
  const dir = writeFiles(tempDir("agentsvc-mm-mentions-"), {
    "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    "gateways/mattermost.yaml": `type: mattermost\ntokenEnvVar: MM_TOKEN\nserverUrl: ${fake.url}\n${extra}`,
  });
  linkPackages(dir, { "@agentsvc/gateway-mattermost": "packages/gateway-mattermost" });
  const served = await serveBin(["start", dir, "--port", String(port)], { MM_TOKEN: fake.token });
  running.push({ fake, served });
  await within(fake.connected(), 20_000, "the bot's WebSocket");
  return { fake, served };
}

/** A visitor has the bot repeat `text` in an open channel; the bot's first post. */
async function repeated(fake: MattermostFake, served: Served, text: string) {
  const { confirmed } = fake.userPosts(TOWN, EVE, `@${fake.botUsername} ${text}`, {
    mentions: [fake.botUserId],
  });
  await within(confirmed, 10_000, "the post read");
  await eventually(() => fake.botPosts.length > 0, `the bot's post\n${served.output()}`, 20_000);
  return fake.botPosts[0]?.message ?? "";
}

describe("agentsvc start: a Mattermost entry's channel-wide mentions", () => {
  it("posts a repeated @channel broken by default", async () => {
    const { fake, served } = await startBot("");
    const message = await repeated(fake, served, "say @channel now");
    expect(message).toContain(`@${ZWJ}channel now`);
    expect(message).not.toMatch(/@channel\b/);
  }, 60_000);

  it("posts it as written with allowChannelMentions: true", async () => {
    const { fake, served } = await startBot("allowChannelMentions: true\n");
    const message = await repeated(fake, served, "say @channel now");
    expect(message).toMatch(/@channel now/);
    expect(message).not.toContain(ZWJ);
  }, 60_000);
});
