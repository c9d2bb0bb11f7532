// A reaction decides the approval request it relates to only in the request's own room. A Matrix
// server does not check that an m.annotation's target is in the room the reaction is sent to
// (https://spec.matrix.org/latest/client-server-api/#mreaction), so a reaction elsewhere naming the
// request's event id must not count.
import { eventually, MatrixFake, within } from "@agentsvc/testkit";
import { type FixtureRun, runFixtureGateway } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createGateway } from "../src/index.js";

const ROOM = "!dm:example.org";
const OTHER = "!elsewhere:example.org";
let fake: MatrixFake;
let run: FixtureRun;

beforeEach(async () => {
  fake = await MatrixFake.start();
  const gateway = createGateway({
    name: "matrix",
    accessTokenEnvVar: "MATRIX_TOKEN",
    env: { MATRIX_TOKEN: fake.token },
    homeserverUrl: fake.url,
    pollTimeoutMs: 1_000,
    backoff: { baseMs: 20, maxMs: 200 },
  });
  run = await runFixtureGateway(gateway);
  await within(fake.firstSync(), 3_000, "the first sync");
});

afterEach(async () => {
  await run?.rig.stop();
  await fake.close();
});

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
