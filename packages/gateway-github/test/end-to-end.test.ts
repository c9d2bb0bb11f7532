// GitHub end to end over real HTTP: mentions in issue and review comments start turns, replies are
// new comments (review replies at the thread's root) ending with the marker, and the bot never
// answers itself.
import {
  eventually,
  type SessionRig,
  type SessionRigOptions,
  startSessionRig,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import type { GithubGateway } from "../src/index.js";
import { mentionedText, POSTED_MARKER } from "../src/inbound.js";
import { alice, bob, type GithubWorld, githubWorld, SECRETS, threadOf } from "./harness.js";

const bot = `@${SECRETS.GH_TEST_BOT_NAME}`;
let world: GithubWorld;
let rig: SessionRig;

let gateway: GithubGateway;

async function boot(options: SessionRigOptions = {}) {
  world = await githubWorld();
  gateway = world.build();
  rig = await startSessionRig(gateway, options);
}

afterEach(async () => {
  await rig?.stop();
  await world?.close();
});

describe("github end to end", () => {
  it("answers a mention on an issue with a new comment ending in the marker, cut at the limit", async () => {
    const long = Array.from({ length: 12_000 }, (_, i) => `w${i}`).join(" ");
    await boot({ replyText: long });
    const answer = await world.fake.commentOnIssue({ number: 12, body: `${bot} summarise`, user: alice });
    expect(answer.status).toBe(200);
    await eventually(() => world.fake.posted.length >= 2, "two comments");
    await rig.session.idle(5_000);
    expect(long.length).toBeGreaterThan(65_536);
    expect(world.fake.posted).toHaveLength(2);
    for (const c of world.fake.posted) {
      expect(c.target).toBe("issues/12");
      expect(c.body.endsWith(POSTED_MARKER)).toBe(true);
      expect(c.body.length).toBeLessThanOrEqual(65_536);
    }
    expect(await rig.userMessages("repo:octo-org/hello-world:issue:12")).toEqual(["summarise"]);
  });

  it("answers a review-thread reply at the thread's root comment", async () => {
    await boot();
    await world.fake.commentOnReview({ pull: 3, body: "nit: rename this", user: bob, id: 900 });
    await world.fake.commentOnReview({
      pull: 3,
      body: `${bot} what do you think?`,
      user: alice,
      inReplyTo: 900,
    });
    await eventually(() => world.fake.posted.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.posted).toHaveLength(1);
    expect(world.fake.posted[0]?.target).toBe("pulls/3/comments/900");
    expect(await rig.userMessages("repo:octo-org/hello-world:review-comment:900")).toEqual([
      "what do you think?",
    ]);
  });

  it("the same delivery three times gives one turn and one comment", async () => {
    await boot();
    for (let i = 0; i < 3; i++) {
      const answer = await world.fake.commentOnIssue({
        number: 4,
        body: `${bot} once`,
        user: alice,
        delivery: "same-guid",
      });
      expect(answer.status).toBe(200);
    }
    await eventually(() => world.fake.posted.length > 0, "the reply");
    await rig.session.idle(5_000);
    expect(world.fake.posted).toHaveLength(1);
  });

  it("acknowledges ping, edits and comments without a mention, and never answers its own comments", async () => {
    await boot();
    world.fake.echo = true; // GitHub sends the bot's own comments back as webhooks
    expect((await world.fake.ping()).status).toBe(200);
    expect(
      (await world.fake.commentOnIssue({ number: 5, body: `${bot} edited`, user: alice, action: "edited" }))
        .status,
    ).toBe(200);
    expect(
      (await world.fake.commentOnIssue({ number: 5, body: "no mention of anyone", user: alice })).status,
    ).toBe(200);
    expect(
      (await world.fake.commentOnIssue({ number: 5, body: `${bot}-helper is another bot`, user: alice }))
        .status,
    ).toBe(200);
    expect((await world.fake.commentOnIssue({ number: 5, body: `ping ${bot}`, user: alice })).status).toBe(
      200,
    );
    await eventually(() => world.fake.posted.length > 0, "the reply");
    // The echo of the bot's reply mentions nobody new, but even a body quoting the mention is guarded.
    await world.fake.commentOnIssue({ number: 5, body: `${bot} quoted\n\n${POSTED_MARKER}`, user: bob });
    await world.fake.commentOnIssue({
      number: 5,
      body: `${bot} hi`,
      user: { login: "other-app[bot]", id: 9, type: "Bot" },
    });
    await new Promise((r) => setTimeout(r, 200));
    await rig.session.idle(5_000);
    expect(world.fake.posted).toHaveLength(1);
    expect(await rig.userMessages("repo:octo-org/hello-world:issue:5")).toEqual(["ping"]);
  });

  it("asks for approval in the thread and only the thread's participant can approve by a reply", async () => {
    await boot();
    await world.fake.commentOnIssue({
      number: 9,
      body: `${bot} please use delete_file on old.log`,
      user: alice,
    });
    await eventually(
      () => world.fake.posted.some((p) => p.body.startsWith("Approval needed:")),
      "the request",
    );
    const request = world.fake.posted.find((p) => p.body.startsWith("Approval needed:"));
    expect(request?.body).toContain(`${bot} approve`);
    expect(request?.target).toBe("issues/9");
    await world.fake.commentOnIssue({ number: 9, body: `${bot} approve`, user: bob });
    await rig.session.idle(3_000);
    expect(rig.executed).toEqual([]);
    await world.fake.commentOnIssue({ number: 9, body: `${bot} approve`, user: alice });
    await eventually(() => rig.executed.length > 0, "the approved tool running");
    await rig.session.idle(5_000);
    expect(rig.executed).toHaveLength(1);
  });

  it("forgets the thread's pending request once it is decided, and a newer request of the thread keeps its own", async () => {
    await boot();
    await world.fake.commentOnIssue({
      number: 7,
      body: `${bot} please use delete_file on a.log`,
      user: alice,
    });
    await eventually(
      () => world.fake.posted.some((p) => p.body.startsWith("Approval needed:")),
      "the request",
    );
    const request = world.fake.posted.find((p) => p.body.startsWith("Approval needed:"));
    const key = `request:${threadOf(request as NonNullable<typeof request>)}`;
    const pending = await rig.store.gatewayState.get<string>("github", key);
    expect(pending).toBeDefined();
    await world.fake.commentOnIssue({ number: 7, body: `${bot} approve`, user: alice });
    await eventually(() => rig.executed.length === 1, "the approved tool running");
    await rig.session.idle(5_000);
    await eventually(
      async () => (await rig.store.gatewayState.get("github", key)) === undefined,
      "the decided request forgotten",
    );
    // A row that names another (newer) request is not this decision's to clear.
    await rig.store.gatewayState.set("github", key, "a-newer-request");
    await gateway.onDecided({
      requestId: pending as string,
      gateway: "github",
      thread: threadOf(request as NonNullable<typeof request>),
      decision: "approve",
      decidedBy: "101",
    });
    expect(await rig.store.gatewayState.get("github", key)).toBe("a-newer-request");
  });

  it("adds the how-to-answer line to a piece the session marks as a request, not to text that merely looks like one", async () => {
    await boot();
    const thread = "repo:octo-org/hello-world:issue:15";
    await gateway.send(thread, "Please decide on the tool call.", {
      requestId: "req_x",
      idempotencyKey: "a",
      attempt: 1,
    });
    await gateway.send(thread, "Approval needed: is what the docs call it.", {
      idempotencyKey: "b",
      attempt: 1,
    });
    const [request, plain] = world.fake.posted;
    expect(request?.body).toContain(`${bot} approve`);
    expect(plain?.body).not.toContain(`${bot} approve`);
  });

  it("a comment answered 429 and then 502 is still posted exactly once", async () => {
    await boot();
    world.fake.failNext(429, 0.05);
    world.fake.failNext(502);
    await world.fake.commentOnIssue({ number: 6, body: `${bot} hello through trouble`, user: alice });
    await eventually(() => world.fake.posted.length > 0, "the comment");
    await rig.session.idle(5_000);
    expect(world.fake.calls).toBe(3);
    expect(world.fake.posted).toHaveLength(1);
  });
});

describe("mentions", () => {
  it("matches @name at the end or before a non-identifier character, and strips it", () => {
    expect(mentionedText("@agentsvc-bot", "agentsvc-bot")).toBe("");
    expect(mentionedText("hey @agentsvc-bot, look", "agentsvc-bot")).toBe("hey , look");
    expect(mentionedText("@AgentSvc-Bot: fix it", "agentsvc-bot")).toBe(": fix it");
    expect(mentionedText("@agentsvc-bot-two do it", "agentsvc-bot")).toBeUndefined();
    expect(mentionedText("@agentsvc-bot_x", "agentsvc-bot")).toBeUndefined();
    expect(mentionedText("mail me@agentsvc-bot.com", "agentsvc-bot")).toBeUndefined();
    expect(mentionedText("no mention here", "agentsvc-bot")).toBeUndefined();
  });
});
