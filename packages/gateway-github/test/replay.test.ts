// Replays (#22 items 3 and 8). `X-GitHub-Delivery` is not covered by the signature, so anyone who
// captured a signed body can send it again under a new delivery id: the comment id inside the signed
// body is the dedup key; a decision applies only to the request pending when the comment was
// written; a comment older than the dedup window is refused.
import { captureLogs, eventually, type SessionRig, startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alice, type GithubWorld, githubWorld, SECRETS } from "./harness.js";

const bot = `@${SECRETS.GH_TEST_BOT_NAME}`;
const thread = "repo:octo-org/hello-world:issue:31";
const DAY = 24 * 60 * 60 * 1000;
let world: GithubWorld;
let rig: SessionRig;
let logs: ReturnType<typeof captureLogs>;

beforeEach(async () => {
  world = await githubWorld();
  logs = captureLogs();
  rig = await startSessionRig(world.build(), { logger: logs.logger });
});
afterEach(async () => {
  await rig.stop();
  await world.close();
});

/** A signed `issue_comment` body as GitHub sends it, to be delivered (and replayed) byte for byte. */
function commentBody(id: number, body: string, createdAt = new Date().toISOString()): string {
  return JSON.stringify({
    action: "created",
    issue: { number: 31, title: "Issue 31", user: alice },
    comment: { id, body, user: alice, created_at: createdAt, updated_at: createdAt },
    repository: { name: "hello-world", full_name: "octo-org/hello-world", owner: { login: "octo-org" } },
    sender: alice,
  });
}

const requests = () => world.fake.posted.filter((p) => p.body.startsWith("Approval needed:"));

describe("github replays", () => {
  it("the same signed body under a new delivery id starts no new turn", async () => {
    const body = commentBody(7001, `${bot} once only`);
    expect((await world.fake.deliver("issue_comment", body, "delivery-a")).status).toBe(200);
    expect((await world.fake.deliver("issue_comment", body, "delivery-b")).status).toBe(200);
    await eventually(() => world.fake.posted.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(await rig.userMessages(thread)).toEqual(["once only"]);
    expect(world.fake.posted).toHaveLength(1);
  });

  it("a captured approval replayed later does not approve a newer request", async () => {
    await world.fake.commentOnIssue({
      number: 31,
      body: `${bot} please use delete_file on a.log`,
      user: alice,
    });
    await eventually(() => requests().length === 1, "the first request");
    const approval = commentBody(7002, `${bot} approve`);
    expect((await world.fake.deliver("issue_comment", approval, "first")).status).toBe(200);
    await eventually(() => rig.executed.length === 1, "the first tool run");
    await rig.session.idle(5_000);
    await world.fake.commentOnIssue({
      number: 31,
      body: `${bot} please use delete_file on b.log`,
      user: alice,
    });
    await eventually(() => requests().length === 2, "the second request");
    expect((await world.fake.deliver("issue_comment", approval, "replayed")).status).toBe(200);
    await rig.session.idle(3_000);
    expect(rig.executed).toHaveLength(1);
    expect(rig.session.snapshot("github", thread).pendingRequestId).toBeDefined();
  });

  it("a decision written before the pending request was made does not decide it", async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    await world.fake.commentOnIssue({
      number: 31,
      body: `${bot} please use delete_file on c.log`,
      user: alice,
    });
    await eventually(() => requests().length === 1, "the request");
    // Never delivered before (say, redelivered from "Recent deliveries"), but written a minute earlier.
    await world.fake.commentOnIssue({ number: 31, body: `${bot} approve`, user: alice, createdAt: before });
    await rig.session.idle(3_000);
    expect(rig.executed).toEqual([]);
    expect(logs.lines().some((l) => String(l.reason).includes("before the pending request"))).toBe(true);
    await world.fake.commentOnIssue({ number: 31, body: `${bot} approve`, user: alice });
    await eventually(() => rig.executed.length === 1, "the approved tool running");
  });

  it("refuses a comment older than the dedup window (its dedup record may be gone)", async () => {
    const old = new Date(Date.now() - 8 * DAY).toISOString();
    const body = commentBody(7003, `${bot} from long ago`, old);
    expect((await world.fake.deliver("issue_comment", body, "old")).status).toBe(200);
    await rig.session.idle(3_000);
    expect(await rig.userMessages(thread)).toEqual([]);
    expect(logs.lines().some((l) => String(l.reason).includes("older than the dedup window"))).toBe(true);
  });
});
