// Every documented payload in packages/testkit/fixtures/github/ through the real webhook route over
// HTTP, signed as GitHub signs it, with its outcome asserted: delivered (text, author, thread),
// ignored (the reason logged), or decided. A new fixture is a new row. Timestamps in a payload are
// moved to now before signing (a fixed date would soon fall outside the dedup window), unless the
// fixture says `keepTimestamps`; `pendingRequestBy` first opens an approval request in the thread.
import {
  type CommonOutcome,
  eventually,
  expectCommonOutcome,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { type GithubWorld, githubWorld } from "./harness.js";

type Json = Record<string, unknown>;
interface Fixture {
  source: string;
  case: string;
  event: string;
  payload: Json;
  keepTimestamps?: boolean;
  pendingRequestBy?: string;
  /** A decided case also names who decided (`by`): the comment's author. */
  expect: CommonOutcome & { by?: string };
}

const fixtures = loadFixtures<Fixture>("github");

function refreshTimestamps(payload: Json): Json {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const copy = structuredClone(payload);
  for (const key of ["comment", "review"]) {
    const o = copy[key] as Json | undefined;
    if (!o) continue;
    for (const field of ["created_at", "updated_at", "submitted_at"]) if (field in o) o[field] = now;
  }
  return copy;
}

let world: GithubWorld;
let run: FixtureRun;
afterEach(async () => {
  await run?.rig.stop();
  await world?.close();
});

describe("github fixtures", () => {
  it("has the minimum set of cases", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    for (const f of fixtures) expect(f.source, f.file).toMatch(/^https:\/\/docs\.github\.com\//);
  });

  it.each(fixtures)("$file: $case", async (f) => {
    world = await githubWorld();
    run = await runFixtureGateway(world.build());
    const issue = (f.payload.issue as Json | undefined)?.number as number | undefined;
    let requestThread: string | undefined;
    if (f.pendingRequestBy) {
      requestThread = `repo:octo-org/hello-world:issue:${issue}`;
      await world.fake.commentOnIssue({
        number: issue as number,
        body: "@agentsvc-bot please use delete_file on fixture.log",
        user: { login: "requester", id: Number(f.pendingRequestBy), type: "User" },
      });
      await eventually(() => world.fake.posted.some((p) => p.body.startsWith("Approval needed:")), "request");
      run.seen.length = 0;
    }
    const pending = requestThread
      ? run.rig.session.snapshot("github", requestThread).pendingRequestId
      : undefined;

    // Written now, after any request it answers was made (GitHub's timestamps have whole seconds).
    const payload = f.keepTimestamps ? f.payload : refreshTimestamps(f.payload);
    const answer = await world.fake.deliver(f.event, payload);
    expect(answer.status).toBe(200);
    expect(await expectCommonOutcome(run, f.expect, pending), `${f.file}: outcome`).toBe(true);
    // A text decision is the comment, recorded with its author; the session applies it as theirs.
    if (f.expect.outcome === "decided") expect(run.seen.map((i) => i.author.id)).toEqual([f.expect.by]);
  });
});
