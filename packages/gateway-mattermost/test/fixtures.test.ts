// The table of documented Mattermost payloads (packages/testkit/fixtures/mattermost, one file per
// case): each `posted` event's data goes through the fake's WebSocket to the real gateway in a real
// session (testkit's fixture runner); the outcome is what the adapter handed the session or the
// reason it logged for ignoring it.
import { MattermostFake, within } from "@agentsvc/testkit";
import {
  expectCommonOutcome,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";

interface Fixture {
  source: string;
  case: string;
  payload: Record<string, unknown>;
  expect: { outcome: string };
}

const fixtures = loadFixtures<Fixture>("mattermost");

let fake: MattermostFake;
let run: FixtureRun;

beforeEach(async () => {
  fake = await MattermostFake.start();
  const gateway = createGateway({
    name: "mattermost",
    tokenEnvVar: "MM_TOKEN",
    env: { MM_TOKEN: fake.token },
    serverUrl: fake.url,
  });
  run = await runFixtureGateway(gateway);
  await within(fake.connected(), 3_000, "the bot's WebSocket");
});

afterEach(async () => {
  await run?.rig.stop();
  await fake.close();
});

describe("mattermost fixtures", () => {
  it("every fixture cites the Mattermost reference its shape follows", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
    for (const f of fixtures)
      expect(f.source, f.file).toMatch(/^https:\/\/(developers|api)\.mattermost\.com\//);
  });

  it.each(fixtures.map((f) => [f.file, f] as const))("%s", async (_file, f) => {
    await within(fake.pushPosted(f.payload), 5_000, `the bot reading past ${f.file}`);
    expect(await expectCommonOutcome(run, f.expect)).toBe(true);
  });
});
