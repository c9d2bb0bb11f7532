// The table of documented Telegram payloads (packages/testkit/fixtures/telegram, one file per case):
// each goes through the Telegram fake's getUpdates to the real gateway, and the outcome is what the
// adapter handed the session (a message, a decision) or the reason it logged for ignoring it.
import { eventually, TelegramFake, within } from "@agentsvc/testkit";
import { loadFixtures } from "@agentsvc/testkit/session";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Gateway } from "@agentsvc/adapter-kit";
import { createGateway } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./recording-context.js";

type Expect =
  | {
      outcome: "delivered";
      text: string;
      author: string;
      thread: string;
      /** The refs handed over (this table's gateway has no media block: files are refused, not fetched). */
      attachments?: unknown[];
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
let gateway: Gateway;
let rec: RecordingContext;

beforeAll(async () => {
  fake = await TelegramFake.start();
  rec = recordingContext({ TELEGRAM_BOT_TOKEN: fake.token });
  gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "TELEGRAM_BOT_TOKEN",
    apiBaseUrl: fake.url,
    pollTimeoutSeconds: 1,
  });
  await gateway.start(rec.context);
  // allowed_updates takes effect with the first getUpdates, as on the Bot API.
  await eventually(() => fake.calls.some((c) => c.method === "getUpdates"), "the first poll");
});

afterAll(async () => {
  await gateway.stop();
  rec.stop();
  await fake.close();
});

describe("telegram fixtures", () => {
  it("every fixture cites the Bot API page its shape follows", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(30);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/core\.telegram\.org\//);
  });

  it.each(fixtures.map((f) => [f.file, f] as const))("%s", async (_file, f) => {
    const before = { delivered: rec.delivered.length, decided: rec.decided.length, logs: rec.logs().length };
    const updateId = fake.pushUpdate(f.payload);
    if (updateId >= 0) await within(fake.confirmed(updateId), 5_000, `confirmation of ${f.file}`);
    const delivered = rec.delivered.slice(before.delivered);
    const decided = rec.decided.slice(before.decided);
    const e = f.expect;
    if (e.outcome === "delivered") {
      expect(decided).toEqual([]);
      expect(delivered).toHaveLength(1);
      const [inbound] = delivered;
      expect({ text: inbound?.text, author: inbound?.author.id, thread: inbound?.thread }).toEqual({
        text: e.text,
        author: e.author,
        thread: e.thread,
      });
      if (e.attachments) expect(inbound?.attachments).toEqual(e.attachments);
    } else if (e.outcome === "decided") {
      expect(delivered).toEqual([]);
      expect(decided).toEqual([{ requestId: e.requestId, decision: e.decision, by: e.by }]);
    } else {
      expect(delivered).toEqual([]);
      expect(decided).toEqual([]);
      // Withheld by allowed_updates (the fake's reason), or handed over and ignored (the debug reason).
      const reasons =
        updateId < 0
          ? [fake.withheld.at(-1)?.reason ?? ""]
          : rec
              .logs()
              .slice(before.logs)
              .filter((l) => l.level === 20)
              .map((l) => String(l.reason ?? ""));
      expect(
        reasons.some((r) => r.includes(e.reason)),
        `reasons: ${JSON.stringify(reasons)}`,
      ).toBe(true);
    }
    // Every button press is answered, whatever became of it (the client shows a spinner until then).
    const query = (f.payload.callback_query as { id?: string } | undefined)?.id;
    if (query)
      await eventually(() => fake.chat.callbackAnswers.get(query) !== undefined, "the callback answer");
  });
});
