// The table of documented Mattermost payloads (packages/testkit/fixtures/mattermost, one file per
// case): each `posted` event's data goes through the fake's WebSocket to the real gateway in a real
// session (testkit's fixture runner); the outcome is what the adapter handed the session or the
// reason it logged for ignoring it.
import { MattermostFake, within } from "@agentsvc/testkit";
import { connectionFixtureTable, expectCommonOutcome } from "@agentsvc/testkit/session";
import { expect } from "vitest";
import { createGateway } from "../src/index.js";

interface Fixture {
  source: string;
  case: string;
  payload: Record<string, unknown>;
  expect: { outcome: string };
}

connectionFixtureTable<Fixture, MattermostFake>({
  platform: "mattermost",
  minimum: 10,
  cites: "every fixture cites the Mattermost reference its shape follows",
  source: /^https:\/\/(developers|api)\.mattermost\.com\//,
  start: async () => {
    const fake = await MattermostFake.start();
    const gateway = createGateway({
      name: "mattermost",
      tokenEnvVar: "MM_TOKEN",
      env: { MM_TOKEN: fake.token },
      serverUrl: fake.url,
    });
    return { fake, gateway, connected: () => fake.connected(), connection: "the bot's WebSocket" };
  },
  each: async (f, { fake, run }) => {
    await within(fake.pushPosted(f.payload), 5_000, `the bot reading past ${f.file}`);
    expect(await expectCommonOutcome(run, f.expect)).toBe(true);
  },
});
