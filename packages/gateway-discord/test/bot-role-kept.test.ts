// The bot's managed role (a role whose tags.bot_id is the bot,
// https://discord.com/developers/docs/topics/permissions#role-object-role-tags-structure) is learned
// from GUILD_ROLE_CREATE/UPDATE; an update of any other role of the guild
// (https://discord.com/developers/docs/events/gateway-events#guild-role-update) leaves it known, so a
// mention of the bot's role still reaches the agent.
import { within } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { CHANNELS } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

const GUILD = "600000000000000001";
const BOT_ROLE = "910000000000000001";

const role = (id: string, name: string, tags: Record<string, string> = {}) => ({
  id,
  name,
  color: 0,
  hoist: false,
  position: 1,
  permissions: "274877983744",
  managed: "bot_id" in tags,
  mentionable: true,
  flags: 0,
  tags,
});

it("an update of another role of the guild keeps the bot's role: a mention of it still reaches the agent", async () => {
  r = await startRig();
  const s = r.h.fake.sessions;
  s.replay({
    t: "GUILD_ROLE_CREATE",
    d: { guild_id: GUILD, role: role(BOT_ROLE, "agent", { bot_id: r.h.fake.botUserId }) },
  });
  s.replay({
    t: "GUILD_ROLE_UPDATE",
    d: { guild_id: GUILD, role: role("910000000000000002", "moderators") },
  });
  const author = r.h.userId("user-1");
  const seq = s.replay({
    t: "MESSAGE_CREATE",
    d: {
      id: r.h.fake.nextId(),
      channel_id: CHANNELS[0],
      channel_type: 0,
      guild_id: GUILD,
      member: { roles: [], joined_at: "2024-03-01T10:00:00.000000+00:00", deaf: false, mute: false },
      author: { id: author, username: "alice", global_name: "Alice", discriminator: "0", avatar: null },
      content: `<@&${BOT_ROLE}> role kept rk1`,
      mentions: [],
      mention_roles: [BOT_ROLE],
      mention_everyone: false,
      attachments: [],
      embeds: [],
      type: 0,
    },
  });
  await within(s.acked(seq), 5_000, "the mention recorded");
  expect(await r.rig.userMessages(CHANNELS[0])).toEqual(["role kept rk1"]);
});
