// Discord faults mid-turn, replies, approvals and the intent hint, against the fake.
import { chunkText, encodeDecision } from "@agentsvc/adapter-kit";
import { DiscordFake, eventually, within } from "@agentsvc/testkit";
import { startSessionRig } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WATCHDOG_MS } from "../src/gateway.js";
import { createGateway, type DiscordGateway, MESSAGE_LIMIT } from "../src/index.js";
import { CHANNELS, DISCORD_HEARTBEAT_INTERVAL_MS, SCALE } from "./harness.js";
import { expectOnceEach, nextConnection, type Rigged, say, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
/**
 * A reconnect, a resume and a replayed backlog twice over: seconds on an idle machine, more under
 * load (the scaled heartbeats and watchdog may cost extra reconnects there). Only a hang bound.
 */
const RESTART_BOUND_MS = 60_000;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

describe("discord faults", () => {
  it("a socket dropped mid-turn resumes and the message makes one turn and one reply", async () => {
    r = await startRig();
    const x = r;
    let dropped = false;
    x.rig.deliverHook = async (inbound, next) => {
      if (!dropped && inbound.text.includes("mt1")) {
        dropped = true;
        x.h.fake.sessions.drop();
        await new Promise((res) => setTimeout(res, 50));
      }
      return next(inbound);
    };
    say(x, "dropped mid turn mt1");
    await nextConnection(x, 1);
    say(x, "after the drop mt2");
    await expectOnceEach(x, ["mt1", "mt2"]);
  });

  it("a dispatch that could not be recorded is replayed by a resume and recorded once", async () => {
    r = await startRig();
    let failures = 1;
    r.rig.deliverHook = async (inbound, next) => {
      if (failures > 0 && inbound.text.includes("nr1")) {
        failures -= 1;
        throw new Error("store unavailable");
      }
      return next(inbound);
    };
    say(r, "not recorded nr1");
    await expectOnceEach(r, ["nr1"]);
    expect(r.h.fake.connections.some((c) => c.resumedSession)).toBe(true);
  });

  it(
    "a restart in the middle of a backlog answers every message once",
    async () => {
      r = await startRig();
      const x = r;
      await x.rig.stop();
      const texts = Array.from({ length: 5 }, (_, i) => `backlog b${i}z`);
      for (const t of texts) say(x, t); // logged in the session while no one is connected
      let recorded = 0;
      let crashing!: () => void;
      const third = new Promise<void>((resolve) => (crashing = resolve));
      x.rig.deliverHook = async (inbound, next) => {
        if (recorded >= 2) {
          crashing();
          return new Promise(() => undefined); // the process dies recording the 3rd
        }
        recorded += 1;
        return next(inbound);
      };
      await x.rig.start();
      // Waits for the event itself (two recorded, the 3rd being recorded), not for a wall-clock
      // deadline a loaded machine misses; the bound only ends a hang (RESTART_BOUND_MS says why).
      await within(third, RESTART_BOUND_MS, "the third message being recorded");
      expect(recorded).toBe(2);
      await x.rig.stop();
      x.rig.deliverHook = undefined;
      await x.rig.start();
      await expectOnceEach(x, texts, RESTART_BOUND_MS);
      // Its waits are bounded by RESTART_BOUND_MS, not by the 20 s default test limit.
    },
    3 * RESTART_BOUND_MS,
  );

  it("a reply answered 401 stops the gateway naming the token variable; the reply stays pending, not dead", async () => {
    r = await startRig();
    r.h.fake.failNext("^POST /channels/\\d+/messages$", {
      status: 401,
      headers: {},
      body: { message: "401: Unauthorized", code: 0 },
    });
    say(r, "revoked rv1");
    await eventually(() => r?.rig.session.status().discord?.state === "stopped", "the gateway stopped");
    expect(r.rig.session.status().discord?.reason).toMatch(
      /^credentials rejected by discord: check DISCORD_TOKEN/,
    );
    const rows = await r.rig.store.outbox.list("discord", CHANNELS[0]);
    expect(rows.some((o) => o.status === "pending")).toBe(true);
    expect(rows.map((o) => o.status)).not.toContain("dead");
  });

  it("a reply answered 429 waits retry_after and is posted once", async () => {
    r = await startRig();
    r.h.fake.failNext("^POST /channels/\\d+/messages$", { status: 429, retryAfter: 0.8 });
    say(r, "rate limited rl1");
    await expectOnceEach(r, ["rl1"]);
    const posts = r.h.fake.calls.filter((c) => c.method === "POST" && /\/messages$/.test(c.path));
    expect((posts[1]?.at as number) - (posts[0]?.at as number)).toBeGreaterThanOrEqual(750);
  });
});

describe("discord replies and approvals", () => {
  it("identifies with the bot token and intents 37377, and every REST call carries Authorization: Bot <token>", async () => {
    r = await startRig();
    say(r, "auth check a1");
    await expectOnceEach(r, ["a1"]);
    expect(r.h.fake.calls.length).toBeGreaterThan(0);
    for (const c of r.h.fake.calls) expect(c.auth).toBe(`Bot ${r.h.fake.token}`);
  });

  it("a reply over 2000 characters arrives in pieces the API accepts", async () => {
    r = await startRig();
    const text = Array.from({ length: 900 }, (_, i) => `word${i}`).join(" ");
    const pieces = chunkText(text, r.rig.gateway.messageLimit);
    for (const [i, piece] of pieces.entries())
      await r.rig.gateway.send(CHANNELS[0], piece, { idempotencyKey: `k${i}`, attempt: 1 });
    const got = r.h.fake.rest.botMessages;
    expect(got.length).toBe(pieces.length);
    expect(got.length).toBeGreaterThan(2);
    for (const m of got) expect(m.content.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
    expect(got.map((m) => m.content).join(" ")).toBe(text);
  });

  it("approval buttons are answered through the interaction callback within 3 s and a stranger is refused", async () => {
    r = await startRig();
    await r.h.inject?.({
      id: "ap1",
      thread: CHANNELS[0],
      text: "please use delete_file ap1",
      author: "user-1",
    });
    await eventually(
      () => r?.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId !== undefined,
      "the request",
    );
    const requestId = r.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId as string;
    await eventually(() => r?.h.fake.rest.botMessages.some((m) => m.components?.length) === true, "the card");
    const card = r.h.fake.rest.botMessages.find((m) => m.components?.length) as NonNullable<
      (typeof r.h.fake.rest.botMessages)[0]
    >;
    const ids = card.components?.flatMap((row) => row.components ?? []).map((b) => b.custom_id);
    expect(ids).toEqual([encodeDecision(requestId, "approve"), encodeDecision(requestId, "reject")]);
    for (const id of ids ?? []) expect(String(id).length).toBeLessThanOrEqual(100); // Discord's custom_id limit
    const stranger = r.h.fake.sessions.press({
      messageId: card.id,
      customId: encodeDecision(requestId, "approve"),
      userId: "123456789",
    });
    await eventually(
      () => r?.h.fake.rest.callbacks.get(stranger.interactionId) !== undefined,
      "the stranger's answer",
      3_000,
    );
    expect(r.h.fake.rest.callbacks.get(stranger.interactionId)).toMatchObject({
      type: 4,
      data: { flags: 64 },
    });
    const owner = r.h.fake.sessions.press({
      messageId: card.id,
      customId: encodeDecision(requestId, "approve"),
      userId: r.h.userId("user-1"),
    });
    await eventually(
      () => r?.h.fake.rest.callbacks.get(owner.interactionId) !== undefined,
      "the owner's answer",
      3_000,
    );
    expect(r.h.fake.rest.callbacks.get(owner.interactionId)?.type).toBe(7);
    await eventually(() => r?.rig.executed.some((n) => n.includes("ap1")) === true, "the tool running");
    expect(card.components).toEqual([]);
    expect(card.content).toContain("Approved by");
  });

  it("an approval prompt over 2,000 characters is posted cut to 2,000 with its buttons, and the pressed card's update fits 2,000", async () => {
    r = await startRig();
    await r.h.inject?.({
      id: "ap2",
      thread: CHANNELS[0],
      text: "please use delete_file ap2",
      author: "user-1",
    });
    await eventually(
      () => r?.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId !== undefined,
      "the request",
    );
    const requestId = r.rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId as string;
    // The session's own prompts are short; the adapter must still post one of 2,500 characters.
    const sent = await r.rig.gateway.requestDecision?.(
      {
        requestId,
        threadId: "t",
        gateway: "discord",
        thread: CHANNELS[0],
        allowedDecisions: ["approve", "reject"],
        toolName: "delete_file",
        arguments: { note: "ap2" },
        prompt: `Approval needed: ${"x".repeat(2_500)}`,
        createdAt: Date.now(),
      },
      { idempotencyKey: "long-card", attempt: 1 },
    );
    const card = r.h.fake.rest.botMessages.find((m) => m.id === sent?.messageId) as NonNullable<
      (typeof r.h.fake.rest.botMessages)[0]
    >;
    expect(card.content.length).toBe(MESSAGE_LIMIT);
    expect(card.content.endsWith("…")).toBe(true);
    expect(card.components?.flatMap((row) => row.components ?? [])).toHaveLength(2);
    const press = r.h.fake.sessions.press({
      messageId: card.id,
      customId: encodeDecision(requestId, "approve"),
      userId: r.h.userId("user-1"),
    });
    await eventually(
      () => r?.h.fake.rest.callbacks.get(press.interactionId) !== undefined,
      "the answer",
      3_000,
    );
    expect(r.h.fake.rest.callbacks.get(press.interactionId)?.type).toBe(7);
    expect(card.content.length).toBeLessThanOrEqual(MESSAGE_LIMIT);
    expect(card.content).toMatch(/…\n\n✅ Approved by <@\d+>$/);
    expect(card.components).toEqual([]);
    await eventually(() => r?.rig.executed.some((n) => n.includes("ap2")) === true, "the tool running");
  });

  it("every message the bot posts carries allowed_mentions {parse: []} (no @everyone, role or user ping): a reply and an approval card", async () => {
    r = await startRig();
    say(r, "ping check @everyone m1");
    await expectOnceEach(r, ["m1"]);
    await r.h.inject?.({
      id: "ap3",
      thread: CHANNELS[0],
      text: "please use delete_file ap3",
      author: "user-1",
    });
    await eventually(() => r?.h.fake.rest.botMessages.some((m) => m.components?.length) === true, "the card");
    const posts = r.h.fake.calls.filter(
      (c) => c.method === "POST" && /^\/channels\/\d+\/messages$/.test(c.path),
    );
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const post of posts) expect(post.body.allowed_mentions).toEqual({ parse: [] });
  });

  it("typing is posted again every interval until the reply is sent, then stops (Discord shows it 10 s)", async () => {
    r = await startRig({ typingIntervalMs: 8_000 * SCALE });
    const typing = () => r?.h.fake.rest.typing.filter((t) => t.channelId === CHANNELS[1]).length ?? 0;
    await r.rig.gateway.startTyping?.(CHANNELS[1]);
    await eventually(() => typing() >= 3, "three typing posts");
    await r.rig.gateway.send(CHANNELS[1], "done", { idempotencyKey: "t1", attempt: 1 });
    const after = typing();
    await new Promise((res) => setTimeout(res, 5 * 8_000 * SCALE));
    expect(typing()).toBe(after);
  });

  it("typing that expires without a reply (a turn that sent nothing) is forgotten by its beat, which stops", async () => {
    r = await startRig({ typingIntervalMs: 8_000 * SCALE, typingMaxMs: 40 * 8_000 * SCALE });
    const gateway = r.rig.gateway as DiscordGateway;
    const typing = () => r?.h.fake.rest.typing.filter((t) => t.channelId === CHANNELS[1]).length ?? 0;
    await gateway.startTyping(CHANNELS[1]);
    expect(gateway.typingThreadCount).toBe(1);
    // The first beat goes out within startTyping (repeats depend on the machine's pace, so not asserted).
    expect(typing()).toBe(1);
    await eventually(() => gateway.typingThreadCount === 0, "the expired channel forgotten", 10_000);
    // The beat stopped with it: nothing is scheduled that could post typing to the channel again.
    expect(r.rig.session.scheduler.list().filter((t) => t.name.includes("typing:"))).toEqual([]);
  });

  it("the bot's own reply, which Discord sends back as MESSAGE_CREATE, starts no turn", async () => {
    r = await startRig();
    say(r, "echo check o1");
    await expectOnceEach(r, ["o1"]);
    const reply = r.h.fake.rest.botMessages.find((m) => m.content.includes("o1"));
    const echoed = r.h.fake.sessions.replay({
      t: "MESSAGE_CREATE",
      d: {
        id: reply?.id as string,
        channel_id: CHANNELS[0],
        channel_type: 1,
        author: { id: r.h.fake.botUserId, username: "agent", bot: true },
        content: reply?.content as string,
        type: 19,
      },
    });
    await within(r.h.fake.sessions.acked(echoed), 3_000, "the echo recorded");
    await r.rig.session.idle(5_000);
    expect(await r.rig.userMessages(CHANNELS[0])).toHaveLength(1);
    expect(r.h.logs.some((l) => l.msg === "ignored" && /own message/.test(String(l.reason)))).toBe(true);
  });

  it("messages with empty text log the message-content intent hint once", async () => {
    r = await startRig();
    for (let i = 0; i < 3; i++) say(r, "");
    say(r, "then text e1");
    await expectOnceEach(r, ["e1"]);
    expect(r.h.logs.filter((l) => /Message Content Intent/.test(l.msg))).toHaveLength(1);
  });

  it("guild messages need a mention of the bot; the mention is removed from the text", async () => {
    r = await startRig();
    const s = r.h.fake.sessions;
    s.userSays({
      channelId: CHANNELS[0],
      guildId: "600000000000000001",
      authorId: r.h.userId("user-1"),
      content: "chatter g0",
    });
    s.userSays({
      channelId: CHANNELS[0],
      guildId: "600000000000000001",
      authorId: r.h.userId("user-1"),
      content: "hey g1",
      mention: true,
    });
    await expectOnceEach(r, ["g1"]);
    expect(r.h.fake.rest.botMessages.some((m) => m.content.includes("g0"))).toBe(false);
    expect((await r.rig.userMessages(CHANNELS[0])).join()).not.toContain("<@");
  });
});

describe("discord limits", () => {
  it("a 10,000-character reply without whitespace goes out in 5 pieces of exactly 2 000 (#25 item 7)", async () => {
    const fake = await DiscordFake.start({ heartbeatIntervalMs: DISCORD_HEARTBEAT_INTERVAL_MS * SCALE });
    const gateway = createGateway({
      name: "discord",
      botTokenEnvVar: "DISCORD_TOKEN",
      env: { DISCORD_TOKEN: fake.token },
      apiBaseUrl: fake.apiBaseUrl,
      watchdogMs: DEFAULT_WATCHDOG_MS * SCALE,
    });
    const session = await startSessionRig(gateway, { replyText: "x".repeat(10_000) });
    try {
      await eventually(() => fake.sessions.current !== undefined, "READY");
      await fake.sessions.userSays({
        channelId: CHANNELS[0],
        authorId: "700000000000000001",
        content: "long please",
      }).acked;
      await eventually(() => fake.rest.botMessages.length === 5, "five pieces");
      expect(fake.rest.botMessages.map((m) => m.content.length)).toEqual(Array(5).fill(MESSAGE_LIMIT));
      expect(MESSAGE_LIMIT).toBe(2_000);
    } finally {
      await session.stop();
      await fake.close();
    }
  });
});
