// Discord counts a channel's message edits as they arrive (rate limits per route and top-level
// resource: https://discord.com/developers/docs/topics/rate-limits; the fake allows 5 per 5 s per
// channel). A preview edit that reaches Discord late (a starved event loop, a slow request) must not
// let the next ones crowd into its window: each edit starts a gap after the previous one's answer,
// not only a gap after the previous one's slot.
import { afterEach, describe, expect, it } from "vitest";
import { DiscordRest } from "../src/api.js";
import { DiscordStreams, MIN_EDIT_GAP_MS } from "../src/stream.js";
import { CHANNELS, type DiscordHarness, discordHarness } from "./harness.js";

let h: DiscordHarness | undefined;
afterEach(async () => {
  await h?.close?.();
  h = undefined;
});

describe("discord: preview edits of one channel", () => {
  it("six edits in a row, the first reaching Discord 1 s after its slot, get no 429", async () => {
    h = await discordHarness();
    const fake = h.fake;
    const rest = new DiscordRest(fake.apiBaseUrl, fake.token, 30_000, "DISCORD_TOKEN");
    const channel = CHANNELS[0];
    const posted = await rest.call<{ id: string }>("POST", `/channels/${channel}/messages`, { content: "0" });
    let delayed = false;
    // The first edit's request is held 1 s on its way, as a loaded machine may hold it.
    const late = {
      call: async (...args: Parameters<DiscordRest["call"]>) => {
        if (args[0] === "PATCH" && !delayed) {
          delayed = true;
          await new Promise((r) => setTimeout(r, 1_000));
        }
        return rest.call(...args);
      },
    } as unknown as DiscordRest;
    const streams = new DiscordStreams(
      () => late,
      () => Promise.reject(new Error("no post expected")),
      MIN_EDIT_GAP_MS,
    );
    const stream = streams.open(channel, { previous: { messageId: posted.id } });
    // One update after another, as the session's preview makes them.
    for (let i = 1; i <= 6; i++) await stream.update(`text ${i}`);
    expect(fake.rest.rateLimited).toEqual([]);
    expect(fake.rest.botMessages.find((m) => m.id === posted.id)).toMatchObject({
      content: "text 6",
      edits: 6,
    });
  });
});
