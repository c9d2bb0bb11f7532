// Every documented payload in packages/testkit/fixtures/whatsapp/ through the real webhook route over
// HTTP, signed as Meta signs it, with its outcome asserted: delivered (text, author, thread),
// ignored (the reason logged), decided, refused (a press the session turned down, with its code)
// or warned (a failed status logged with its error code). A new fixture is a new row. Message
// timestamps are moved to now (less `timestampAgeSeconds`) before signing; `pendingRequestBy`
// first opens an approval request for that user, whose ids replace REQUEST_ID and
// REQUEST_MESSAGE_ID in the payload.
import {
  type CommonOutcome,
  eventually,
  expectCommonOutcome,
  expectNothingDelivered,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type WhatsappWorld, whatsappWorld } from "./harness.js";

type Json = Record<string, unknown>;
interface Fixture {
  source: string;
  case: string;
  payload: Json;
  timestampAgeSeconds?: number;
  pendingRequestBy?: string;
  expect: CommonOutcome | { outcome: "refused"; code: string } | { outcome: "warned"; code: number };
}

const fixtures = loadFixtures<Fixture>("whatsapp");

/** Message timestamps set to now less `age` seconds, and the placeholders filled in. */
function prepare(payload: Json, age: number, ids: Record<string, string>): string {
  const copy = structuredClone(payload);
  const now = String(Math.floor(Date.now() / 1000) - age);
  for (const entry of copy.entry as Json[])
    for (const change of entry.changes as Json[])
      for (const message of ((change.value as Json).messages as Json[] | undefined) ?? [])
        message.timestamp = now;
  let text = JSON.stringify(copy);
  for (const [placeholder, value] of Object.entries(ids)) text = text.replaceAll(placeholder, value);
  return text;
}

let world: WhatsappWorld;
let run: FixtureRun;
afterEach(async () => {
  await run?.rig.stop();
  await world?.close();
});

describe("whatsapp fixtures", () => {
  it("has the minimum set of cases, each citing Meta's documentation", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/developers\.facebook\.com\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await whatsappWorld();
    run = await runFixtureGateway(world.build());
    const ids: Record<string, string> = {};
    let pending: string | undefined;
    if (f.pendingRequestBy) {
      await world.fake.deliverText({
        from: f.pendingRequestBy,
        text: "please use delete_file on fixture.log",
      });
      await eventually(() => world.fake.sent.some((s) => s.type === "interactive"), "the approval request");
      pending = run.rig.session.snapshot("whatsapp", f.pendingRequestBy).pendingRequestId;
      expect(pending).toBeDefined();
      ids.REQUEST_MESSAGE_ID = world.fake.sent.find((s) => s.type === "interactive")?.id as string;
      ids.REQUEST_ID = pending as string;
      run.seen.length = 0;
    }

    const answer = await world.fake.deliver(prepare(f.payload, f.timestampAgeSeconds ?? 0, ids));
    expect(answer.status).toBe(200);
    const e = f.expect;
    if (await expectCommonOutcome(run, e, pending)) return;
    await expectNothingDelivered(run);
    if (e.outcome === "refused") {
      expect((await run.rig.session.interaction(pending as string))?.status).toBe("open");
      expect(run.rig.executed).toEqual([]);
      expect(run.logs.lines().some((l) => l.msg === "decision not applied" && l.code === e.code)).toBe(true);
    } else if (e.outcome === "warned") {
      const warned = run.logs.lines().filter((l) => l.level === 40 && l.msg === "reply not delivered");
      expect(warned.map((l) => l.code)).toEqual([e.code]);
    } else throw new Error(`${f.file}: unknown outcome ${e.outcome}`);
  });
});
