// The Slack fake answers Web API methods as Slack documents them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SlackFake } from "../src/index.js";

let fake: SlackFake;
beforeEach(async () => {
  fake = await SlackFake.start();
});
afterEach(() => fake.close());

describe("slack fake", () => {
  it("auth.test answers the workspace's url and name (team), the bot user's name (user) and the ids, as https://docs.slack.dev/reference/methods/auth.test shows", async () => {
    const res = await fetch(`${fake.apiBaseUrl}/auth.test`, {
      method: "POST",
      headers: { authorization: `Bearer ${fake.botToken}` },
    });
    expect(await res.json()).toMatchObject({
      ok: true,
      url: expect.stringMatching(/^https:\/\//),
      team: fake.workspace.teamName,
      user: fake.workspace.botUserName,
      team_id: fake.workspace.teamId,
      user_id: fake.workspace.botUserId,
      bot_id: expect.any(String),
    });
  });
});
