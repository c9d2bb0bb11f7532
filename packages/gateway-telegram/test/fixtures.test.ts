// The table of documented Telegram payloads (packages/testkit/fixtures/telegram, one file per case):
// each goes through the Telegram fake's getUpdates to the real gateway in a real session (testkit's
// fixture runner), and the outcome is what the adapter handed the session (a message, a decision)
// or the reason it logged for ignoring it (or the fake's, for a kind allowed_updates withholds).
import { eventually, TelegramFake, within } from "@agentsvc/testkit";
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
      /** The refs handed over (this table's gateway has no media block: files are refused, not fetched). */
      attachments?: unknown[];
      /** A reply sent back through the gateway (cut and rendered as the session does) and what the fake got. */
      reply?: { markdown: string; raw: string; text: string };
    }
  | { outcome: "ignored"; reason: string }
  | { outcome: "decided"; requestId: string; decision: string; by: string };

interface Fixture {
  source: string;
  case: string;
  payload: Record<string, unknown>;
  expect: Expect;
}

const fixtures = loadFixtures<Fixture>("telegram");

let fake: TelegramFake;
let run: FixtureRun;
let gateway: ReturnType<typeof createGateway>;

beforeEach(async () => {
  fake = await TelegramFake.start();
  gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "TELEGRAM_BOT_TOKEN",
    env: { TELEGRAM_BOT_TOKEN: fake.token },
    apiBaseUrl: fake.url,
    pollTimeoutSeconds: 1,
  });
  run = await runFixtureGateway(gateway);
  // allowed_updates takes effect with the first getUpdates, as on the Bot API.
  await eventually(() => fake.calls.some((c) => c.method === "getUpdates"), "the first poll");
});

afterEach(async () => {
  await run?.rig.stop();
  await fake.close();
});

describe("telegram fixtures", () => {
  it("every fixture cites the Bot API page its shape follows", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(30);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/core\.telegram\.org\//);
  });

  it.each(fixtures.map((f) => [f.file, f] as const))("%s", async (_file, f) => {
    const updateId = fake.pushUpdate(f.payload);
    if (updateId >= 0) await within(fake.confirmed(updateId), 5_000, `confirmation of ${f.file}`);
    const e = f.expect;
    if (e.outcome === "decided") {
      await eventually(() => run.decided.length > 0, "the decision");
      expect(run.decided.map(({ requestId, decision, by }) => ({ requestId, decision, by }))).toEqual([
        { requestId: e.requestId, decision: e.decision, by: e.by },
      ]);
      expect(run.seen).toEqual([]);
    } else if (e.outcome === "ignored" && updateId < 0) {
      // Withheld by allowed_updates: Telegram never hands it over, so the reason is the fake's.
      expect(fake.withheld.at(-1)?.reason ?? "").toContain(e.reason);
      await run.rig.session.idle(2_000);
      expect(run.seen).toEqual([]);
    } else {
      expect(await expectCommonOutcome(run, e), f.file).toBe(true);
      if (e.outcome === "delivered" && e.attachments) expect(run.seen[0]?.attachments).toEqual(e.attachments);
      if (e.outcome === "delivered" && e.reply) {
        await run.rig.session.idle(5_000);
        const pieces = gateway.chunk?.(e.reply.markdown) ?? [];
        for (const [i, piece] of pieces.entries())
          await gateway.send(e.thread, piece, { idempotencyKey: `reply:${i}`, attempt: 1 });
        const sent = fake.chat.botMessages.at(-1);
        expect({ raw: sent?.raw, text: sent?.text, parseMode: sent?.parseMode }).toEqual({
          raw: e.reply.raw,
          text: e.reply.text,
          parseMode: "HTML",
        });
      }
    }
    // Every button press is answered, whatever became of it (the client shows a spinner until then).
    const query = (f.payload.callback_query as { id?: string } | undefined)?.id;
    if (query)
      await eventually(() => fake.chat.callbackAnswers.get(query) !== undefined, "the callback answer");
  });
});
