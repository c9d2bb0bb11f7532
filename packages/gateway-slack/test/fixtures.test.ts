// Every documented Slack payload in testkit/fixtures/slack runs through the Slack fake's Socket Mode
// connection into the real gateway in a real session (testkit's fixture runner), and the outcome is
// checked: delivered (text, author, thread) or ignored (the reason logged) as for every adapter, or
// decided (the press handed to the session as that user's decision). A new fixture file is a new row.
import { encodeDecision } from "@agentsvc/adapter-kit";
import { eventually, type SlackEnvelope, SlackFake, within } from "@agentsvc/testkit";
import {
  expectCommonOutcome,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";

type Expect =
  | {
      outcome: "delivered";
      text: string;
      author: string;
      thread: string;
      meta?: Record<string, unknown>;
      /** The refs handed over (this table's entry has no media block: files are refused, not fetched). */
      attachments?: unknown[];
      /** A reply sent back through the gateway (cut and rendered as the session does) and the text Slack got. */
      reply?: { markdown: string; text: string };
    }
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
let run: FixtureRun;
let gateway: ReturnType<typeof createGateway>;

beforeEach(async () => {
  fake = await SlackFake.start({ ackTimeoutMs: 2_000, echoOwnMessages: false });
  gateway = createGateway({
    name: "slack",
    botTokenEnvVar: "SLACK_BOT",
    appTokenEnvVar: "SLACK_APP",
    env: { SLACK_BOT: fake.botToken, SLACK_APP: fake.appToken },
    apiBaseUrl: fake.apiBaseUrl,
  });
  run = await runFixtureGateway(gateway);
  await eventually(() => fake.openConnections.length === 1, "the Socket Mode connection");
});

afterEach(async () => {
  await run?.rig.stop();
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
      if (e.outcome === "decided") {
        await eventually(() => run.decided.length > 0, "the decision");
        expect(run.decided.map(({ requestId, decision, by }) => ({ requestId, decision, by }))).toEqual([
          { requestId: e.requestId, decision: e.decision, by: e.by },
        ]);
        expect(run.seen).toEqual([]);
        return;
      }
      expect(await expectCommonOutcome(run, e), file).toBe(true);
      if (e.outcome === "delivered") {
        expect(run.seen[0]?.author.isBot).toBe(false);
        if (e.meta) expect(run.seen[0]?.meta).toMatchObject(e.meta);
        if (e.attachments) expect(run.seen[0]?.attachments).toEqual(e.attachments);
        if (e.reply) {
          await run.rig.session.idle(5_000);
          const pieces = gateway.chunk?.(e.reply.markdown) ?? [];
          for (const [i, piece] of pieces.entries())
            await gateway.send(e.thread, piece, { idempotencyKey: `reply:${i}`, attempt: 1 });
          expect(fake.workspace.botMessages.at(-1)?.text).toBe(e.reply.text);
        }
      }
    });
  }
});
