// The gateway against the Mattermost fake: threads, pending_post_id, the AppError/429 answers,
// typing on the socket, a refused token, and doctor's users/me (https://api.mattermost.com/,
// https://developers.mattermost.com/integrate/reference/websocket/).
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, MattermostFake, within } from "@agentsvc/testkit";
import { type FixtureRun, runFixtureGateway } from "@agentsvc/testkit/session";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway, doctor, type MattermostGateway } from "../src/index.js";

const DM = "dmchan00000000000000000000";
let fake: MattermostFake;
let run: FixtureRun;
let gateway: MattermostGateway;

function gatewayFor(f: MattermostFake, token = f.token): MattermostGateway {
  return createGateway({
    name: "mattermost",
    tokenEnvVar: "MM_TOKEN",
    env: { MM_TOKEN: token },
    serverUrl: f.url,
    backoff: { baseMs: 20, maxMs: 200 },
  });
}

let reconnects = 0;

beforeEach(async () => {
  fake = await MattermostFake.start();
  gateway = gatewayFor(fake);
  reconnects = 0;
  const start = gateway.start.bind(gateway);
  gateway.start = (ctx) =>
    start({
      ...ctx,
      reconnected: () => {
        reconnects += 1;
        ctx.reconnected?.();
      },
    });
  run = await runFixtureGateway(gateway);
  await within(fake.connected(), 3_000, "the bot's WebSocket");
});

afterEach(async () => {
  await run?.rig.stop();
  await fake.close();
});

describe("mattermost gateway", () => {
  it("a message in a thread is answered in that thread (root_id)", async () => {
    const { confirmed } = fake.userPosts(DM, "alice000000000000000000000", "and tomorrow?", {
      rootId: "root0000000000000000000001",
    });
    await within(confirmed, 3_000, "the post read");
    await eventually(() => fake.botPosts.length > 0, "the reply");
    expect(fake.botPosts[0]).toMatchObject({ channel_id: DM, root_id: "root0000000000000000000001" });
  });

  it("a piece sent again with the same outbox key is one post (the key is pending_post_id)", async () => {
    const a = await gateway.send(DM, "once", { idempotencyKey: "k-1", attempt: 1 });
    const b = await gateway.send(DM, "once", { idempotencyKey: "k-1", attempt: 2 });
    expect(b.messageId).toBe(a.messageId);
    expect(fake.botPosts.filter((p) => p.message === "once")).toHaveLength(1);
  });

  it("a 429 waits Retry-After; a 401 names the variable", async () => {
    fake.failNext(429, 2);
    const limited = await gateway.send(DM, "x", { idempotencyKey: "k-2", attempt: 1 }).catch((e) => e);
    expect(limited).toBeInstanceOf(GatewaySendError);
    expect((limited as GatewaySendError).retryAfterMs).toBe(2_000);
    fake.failNext(401);
    const refused = await gateway.send(DM, "x", { idempotencyKey: "k-3", attempt: 1 }).catch((e) => e);
    expect(refused).toMatchObject({ credentials: true, envVar: "MM_TOKEN" });
  });

  it("typing is the user_typing action on the socket, with parent_id in a thread", async () => {
    await gateway.startTyping?.(`${DM}|root0000000000000000000001`);
    await eventually(() => fake.actions.some((a) => a.action === "user_typing"), "the action");
    expect(fake.actions.find((a) => a.action === "user_typing")?.data).toEqual({
      channel_id: DM,
      parent_id: "root0000000000000000000001",
    });
  });

  it("a reconnect names the connection_id from hello and the sequence_number of the next event", async () => {
    const { confirmed } = fake.userPosts(DM, "alice000000000000000000000", "hello");
    await within(confirmed, 3_000, "the post read");
    await eventually(() => fake.botPosts.length > 0, "the reply");
    await eventually(() => fake.actions.filter((a) => a.action === "ping").length >= 2, "both events read");
    fake.dropConnections();
    await eventually(() => fake.connects.length === 2, "the second connection");
    const q = fake.connects[1];
    expect(q?.get("connection_id")).toBe("conn-1");
    // hello is 0, the user's post 1, the bot's own reply 2 (also recorded): the next is 3.
    expect(q?.get("sequence_number")).toBe("3");
  });

  it("a post made while the socket was down arrives once after the resume", async () => {
    fake.dropConnections();
    const { confirmed } = fake.userPosts(DM, "alice000000000000000000000", "while you were away");
    await within(confirmed, 5_000, "the post read after the resume");
    await eventually(() => run.seen.length === 1, "the delivery");
    expect(run.seen[0]?.text).toBe("while you were away");
    await run.rig.session.idle(5_000);
    expect(run.seen).toHaveLength(1);
  });

  it("a resumed connection (no hello, the challenge answered OK) counts as a reconnect", async () => {
    fake.dropConnections();
    await eventually(() => fake.connects.length === 2, "the second connection");
    expect(fake.connects[1]?.get("connection_id")).toBe("conn-1");
    await eventually(() => reconnects === 1, "the reconnect reported");
  });

  it("doctor: users/me names the bot; a refused token fails naming the variable", async () => {
    const entry = { tokenEnvVar: "MM_TOKEN", serverUrl: fake.url };
    expect(await doctor(entry, { env: { MM_TOKEN: fake.token }, projectDir: "." })).toMatchObject([
      { status: "ok", detail: "bot @agentbot" },
    ]);
    const [bad] = await doctor(entry, { env: { MM_TOKEN: "wrong" }, projectDir: "." });
    expect(bad).toMatchObject({ status: "failed" });
    expect(bad?.fix).toContain("MM_TOKEN");
  });
});

describe("mattermost gateway with a refused token", () => {
  it("a 401 on users/me stops the gateway naming the variable, without opening the socket", async () => {
    const other = await MattermostFake.start();
    const refused = await runFixtureGateway(gatewayFor(other, "not-the-token"));
    try {
      await eventually(
        () => refused.logs.lines().some((l) => l.level >= 50 && JSON.stringify(l).includes("MM_TOKEN")),
        "the error naming the variable",
      );
      expect(other.connects).toHaveLength(0);
    } finally {
      await refused.rig.stop();
      await other.close();
    }
  });
});
