// Every documented Slack payload in testkit/fixtures/slack runs through the Slack fake's Socket Mode
// connection into the real gateway, and the outcome is checked: delivered (text, author, thread),
// ignored (the reason logged at debug) or decided. A new fixture file is a new row.
import { encodeDecision } from "@agentsvc/adapter-kit";
import { captureLogs, type SlackEnvelope, SlackFake, eventually, within } from "@agentsvc/testkit";
import { loadFixtures } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./context.js";

type Expect =
  | { outcome: "delivered"; text: string; author: string; thread: string; meta?: Record<string, unknown> }
  | { outcome: "ignored"; reason: string }
  | { outcome: "decided"; requestId: string; decision: "approve" | "reject"; by: string };

interface Fixture {
  source: string;
  case: string;
  /** Threads the bot answered in before this payload arrives (sent through the gateway itself). */
  given?: { botRepliedIn?: string[] };
  payload: SlackEnvelope;
  expect: Expect;
}

const fixtures = loadFixtures<Fixture>("slack").map((fixture) => ({ file: fixture.file, fixture }));

/**
 * A button's value is what our adapter put on it (the session's decision codec), not a Slack format:
 * the fixture holds `$DECISION_VALUE` and the test fills in the encoding of the expected decision.
 */
function withButtonValue(envelope: SlackEnvelope, expect: Expect): SlackEnvelope {
  if (expect.outcome !== "decided") return envelope;
  const value = encodeDecision(expect.requestId, expect.decision);
  return JSON.parse(JSON.stringify(envelope).replaceAll("$DECISION_VALUE", value)) as SlackEnvelope;
}

let fake: SlackFake;
let rec: RecordingContext;
let logs: ReturnType<typeof captureLogs>;
let gateway: ReturnType<typeof createGateway>;

beforeEach(async () => {
  fake = await SlackFake.start({ ackTimeoutMs: 2_000, echoOwnMessages: false });
  logs = captureLogs();
  rec = recordingContext(logs.logger);
  gateway = createGateway({
    name: "slack",
    botTokenEnvVar: "SLACK_BOT",
    appTokenEnvVar: "SLACK_APP",
    env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
    apiBaseUrl: fake.apiBaseUrl,
  });
  await gateway.start(rec.context);
  await eventually(() => fake.openConnections.length === 1, "the Socket Mode connection");
});

afterEach(async () => {
  await gateway.stop();
  rec.stop();
  await fake.close();
});

describe("slack fixtures", () => {
  it("has the minimum case list", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  for (const { file, fixture } of fixtures) {
    it(`${fixture.case} (${file})`, async () => {
      const sendOptions = { idempotencyKey: "k", attempt: 1 };
      for (const thread of fixture.given?.botRepliedIn ?? [])
        await gateway.send(thread, "an earlier answer", sendOptions);
      await within(fake.deliverEnvelope(withButtonValue(fixture.payload, fixture.expect)), 3_000, "the ack");
      const e = fixture.expect;
      if (e.outcome === "delivered") {
        expect(rec.delivered.map((m) => ({ text: m.text, author: m.author.id, thread: m.thread }))).toEqual([
          { text: e.text, author: e.author, thread: e.thread },
        ]);
        expect(rec.delivered[0]?.author.isBot).toBe(false);
        if (e.meta) expect(rec.delivered[0]?.meta).toMatchObject(e.meta);
      } else if (e.outcome === "ignored") {
        expect(rec.delivered).toEqual([]);
        const debug = logs.lines().filter((l) => l.level === 20 && typeof l.reason === "string");
        expect(debug.map((l) => l.reason).join(" | ")).toContain(e.reason);
      } else {
        expect(rec.decided).toEqual([{ requestId: e.requestId, decision: e.decision, by: e.by }]);
        expect(rec.delivered).toEqual([]);
      }
    });
  }
});
