// A reaction decides the approval request it relates to only in the request's own room. A Matrix
// server does not check that an m.annotation's target is in the room the reaction is sent to
// (https://spec.matrix.org/latest/client-server-api/#mreaction), so a reaction elsewhere naming the
// request's event id must not count.
import { eventually, type MatrixFake, within } from "@agentsvc/testkit";
import type { FixtureRun } from "@agentsvc/testkit/session";
import { startMatrixRig, stopMatrixRig } from "./matrix-rig.js";
import { afterEach, beforeEach, expect, it } from "vitest";

const ROOM = "!dm:example.org";
const OTHER = "!elsewhere:example.org";
let fake: MatrixFake;
let run: FixtureRun;

beforeEach(async () => {
  ({ fake, run } = await startMatrixRig());
});

afterEach(() => stopMatrixRig({ fake, run }));

it("a 👍 naming the request's event from another room decides nothing; the same in the request's room does", async () => {
  fake.userSends(ROOM, "@alice:example.org", {
    msgtype: "m.text",
    body: "please use delete_file report.txt",
  });
  await eventually(() => fake.sent.some((s) => /approve/i.test(String(s.content.body))), "the text request");
  const request = fake.sent.find((s) => /approve/i.test(String(s.content.body)));
  const thumbsUp = { "m.relates_to": { rel_type: "m.annotation", event_id: request?.eventId, key: "👍" } };

  const elsewhere = fake.userSends(OTHER, "@alice:example.org", thumbsUp, "m.reaction");
  await within(fake.confirmed(elsewhere), 3_000, "the reaction in the other room read");
  expect(run.decided).toEqual([]);
  expect(run.rig.executed).toEqual([]);

  const here = fake.userSends(ROOM, "@alice:example.org", thumbsUp, "m.reaction");
  await within(fake.confirmed(here), 3_000, "the reaction in the request's room read");
  await eventually(() => run.decided.length > 0, "the decision");
  expect(run.decided).toMatchObject([{ decision: "approve", by: "@alice:example.org", ok: true }]);
});
