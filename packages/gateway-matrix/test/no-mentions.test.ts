// The bot's replies mention nobody: every event carries an empty `m.mentions`
// (https://spec.matrix.org/latest/client-server-api/#user-and-room-mentions). Without it the legacy
// push rules read the body, so "@room" typed by someone and repeated by the agent would notify the
// whole room with the bot's power level (MSC3952: a user without the power level to send @room).
import { eventually, type MatrixFake } from "@agentsvc/testkit";
import type { FixtureRun } from "@agentsvc/testkit/session";
import { startMatrixRig, stopMatrixRig } from "./matrix-rig.js";
import { afterEach, beforeEach, expect, it } from "vitest";

const ROOM = "!dm:example.org";
let fake: MatrixFake;
let run: FixtureRun;

beforeEach(async () => {
  ({ fake, run } = await startMatrixRig());
});

afterEach(() => stopMatrixRig({ fake, run }));

it("a reply repeating '@room' and a user id, and an approval request, carry an empty m.mentions", async () => {
  fake.userSends(ROOM, "@alice:example.org", { msgtype: "m.text", body: "say @room and @bob:example.org" });
  await eventually(() => fake.sent.length > 0, "the reply");
  fake.userSends(ROOM, "@alice:example.org", {
    msgtype: "m.text",
    body: "please use delete_file report.txt",
  });
  await eventually(
    () => fake.sent.some((s) => /approve/i.test(String(s.content.body))),
    "the approval request",
  );
  expect(String(fake.sent[0]?.content.body)).toContain("@room");
  expect(fake.sent.length).toBeGreaterThan(1);
  for (const event of fake.sent) expect(event.content["m.mentions"]).toEqual({});
});
