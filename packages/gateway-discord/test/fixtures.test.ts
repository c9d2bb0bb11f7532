// Every documented Discord payload in testkit/fixtures/discord, run through the fake gateway
// connection (dispatches, close frames) or the fake REST API (send failures) to the real gateway in a
// real session (testkit's fixture runner: delivered, ignored and decided are the common outcomes).
// A new fixture file is a new row; this file changes only for a new kind of outcome.
import { encodeDecision, isGatewaySendError } from "@agentsvc/adapter-kit";
import { DiscordFake, eventually, within } from "@agentsvc/testkit";
import {
  type CommonOutcome,
  expectCommonOutcome,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WATCHDOG_MS } from "../src/gateway.js";
import { createGateway, type DiscordGateway } from "../src/index.js";
import { DISCORD_HEARTBEAT_INTERVAL_MS, SCALE } from "./harness.js";

type Frame = { op: 0; s: number; t: string; d: Record<string, unknown> };
type Expect =
  | (Extract<CommonOutcome, { outcome: "delivered" }> & {
      authorName: string;
      /** The refs handed over (this table's entry has no media block: files are refused, not fetched). */
      attachments?: unknown[];
    })
  | { outcome: "ignored"; reason: string; intentHint?: boolean }
  | { outcome: "decided"; decision: "approve" | "reject"; by: string }
  | { outcome: "refused"; by: string }
  | { outcome: "stopped"; reason: string }
  | { outcome: "resumed" | "identified" }
  | { outcome: "send-failed"; kind: "retry" | "permanent" | "credentials"; retryAfterMs?: number };
interface Fixture {
  source: string;
  case: string;
  before?: Frame[];
  given?: { approvalRequestedBy: string; channel: string };
  payload:
    | Frame
    | { close: number; reason: string }
    | { rest: { status: number; headers: Record<string, string>; body: unknown } };
  expect: Expect;
}

/** One row's platform and gateway. */
interface Rigged {
  fake: DiscordFake;
  gateway: DiscordGateway;
  run: FixtureRun;
}

const FIXTURES = loadFixtures<Fixture>("discord").map((fx) => ({ file: fx.file, fx }));
/** The ids the fixtures were written with. */
const BOT = "900000000000000001";
const GUILD = "600000000000000001";
const HINT = /Message Content Intent/;

let r: Rigged | undefined;
afterEach(async () => {
  await r?.run.rig.stop();
  await r?.fake.close();
  r = undefined;
});

/** The fake, and the gateway against it started in a session, once its session is READY. */
async function startRow(): Promise<Rigged> {
  const fake = await DiscordFake.start({ heartbeatIntervalMs: DISCORD_HEARTBEAT_INTERVAL_MS * SCALE });
  const gateway = createGateway({
    name: "discord",
    botTokenEnvVar: "DISCORD_TOKEN",
    env: { DISCORD_TOKEN: fake.token },
    apiBaseUrl: fake.apiBaseUrl,
    watchdogMs: DEFAULT_WATCHDOG_MS * SCALE,
    backoff: { baseMs: 20, maxMs: 200 },
    jitter: () => 0.5,
    invalidSessionDelayMs: [10, 30],
  }) as DiscordGateway;
  const run = await runFixtureGateway(gateway);
  await eventually(() => fake.sessions.current !== undefined, "READY");
  return { fake, gateway, run };
}

describe("discord fixtures", () => {
  it("cover the minimum case list", () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(30);
    for (const { file, fx } of FIXTURES) {
      expect(fx.source, file).toMatch(/^https:\/\/discord\.com\/developers\/docs\//);
      expect(fx.case, file).toBeTruthy();
    }
  });

  for (const { file, fx } of FIXTURES) {
    it(`${file}: ${fx.case} -> ${fx.expect.outcome}`, async () => {
      r = await startRow();
      expect(r.fake.botUserId).toBe(BOT);
      const payload = fx.payload;
      if ("close" in payload) return closeRow(r, payload, fx.expect);
      if ("rest" in payload) return restRow(r, payload.rest, fx.expect);
      for (const frame of fx.before ?? []) r.fake.sessions.replay(frame);
      if (fx.given) return decisionRow(r, fx.given, payload, fx.expect);
      const seq = r.fake.sessions.replay(payload);
      await within(r.fake.sessions.acked(seq), 5_000, `the adapter recording ${file}`);
      const e = fx.expect;
      if (e.outcome !== "delivered" && e.outcome !== "ignored")
        throw new Error(`${file}: outcome ${e.outcome} needs a frame of another kind`);
      expect(await expectCommonOutcome(r.run, e)).toBe(true);
      if (e.outcome === "delivered") {
        expect(r.run.seen[0]?.author).toMatchObject({ displayName: e.authorName, isBot: false });
        if (e.attachments) expect(r.run.seen[0]?.attachments).toEqual(e.attachments);
      }
      const hinted = r.run.logs.lines().some((l) => HINT.test(String(l.msg)));
      expect(hinted, "the message-content-intent hint").toBe(
        e.outcome === "ignored" && e.intentHint === true,
      );
    });
  }
});

async function decisionRow(
  x: Rigged,
  given: NonNullable<Fixture["given"]>,
  frame: Frame,
  e: Expect,
): Promise<void> {
  x.fake.sessions.userSays({
    channelId: given.channel,
    guildId: GUILD,
    authorId: given.approvalRequestedBy,
    content: "please use delete_file fx1",
    mention: true,
  });
  const session = x.run.rig.session;
  await eventually(
    () => session.snapshot("discord", given.channel).pendingRequestId !== undefined,
    "the approval request",
  );
  const requestId = session.snapshot("discord", given.channel).pendingRequestId as string;
  await eventually(() => x.fake.rest.botMessages.some((m) => m.components?.length), "the card");
  const card = x.fake.rest.botMessages.find((m) => m.components?.length) as { id: string; content: string };
  const filled = JSON.parse(
    JSON.stringify(frame)
      .replaceAll("{{approve}}", encodeDecision(requestId, "approve"))
      .replaceAll("{{reject}}", encodeDecision(requestId, "reject"))
      .replaceAll("{{requestId}}", requestId)
      .replaceAll("{{card}}", card.id)
      .replaceAll("{{prompt}}", JSON.stringify(card.content).slice(1, -1)),
  ) as Frame;
  x.fake.sessions.replay(filled);
  const interactionId = filled.d.id as string;
  await eventually(() => x.fake.rest.callbacks.get(interactionId) !== undefined, "the callback", 3_000);
  const callback = x.fake.rest.callbacks.get(interactionId);
  if (e.outcome === "decided") {
    expect(await expectCommonOutcome(x.run, e, requestId)).toBe(true);
    expect(x.run.decided.at(-1)).toMatchObject({ requestId, decision: e.decision, by: e.by, ok: true });
    expect(callback?.type).toBe(7);
    expect(String(callback?.data?.content)).toContain(
      `${e.decision === "approve" ? "Approved" : "Rejected"} by <@${e.by}>`,
    );
    if (e.decision === "approve") expect(x.run.rig.executed.some((n) => n.includes("fx1"))).toBe(true);
    expect(session.snapshot("discord", given.channel).pendingRequestId).toBeUndefined();
  } else if (e.outcome === "refused") {
    expect(callback).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(session.snapshot("discord", given.channel).pendingRequestId).toBe(requestId);
    expect(x.run.rig.executed).toEqual([]);
  } else throw new Error(`a button press cannot end ${e.outcome}`);
}

async function closeRow(x: Rigged, close: { close: number; reason: string }, e: Expect): Promise<void> {
  const session = x.fake.sessions.current?.id;
  x.fake.sessions.closeWith(close.close, close.reason);
  if (e.outcome === "stopped") {
    await eventually(() => x.gateway.halted, "stopped");
    await new Promise((res) => setTimeout(res, 300));
    expect(x.fake.connections).toHaveLength(1);
    // Bad credentials stop the gateway through the session (its status has the reason); other
    // fatal closes log the cause on the gateway's logger.
    const errors = x.run.logs
      .lines()
      .filter((l) => l.level === 50)
      .map((l) => String(l.msg));
    const status = x.run.rig.session.status().discord;
    expect([...errors, status?.reason ?? ""].join(" | ")).toContain(e.reason);
    return;
  }
  await eventually(() => x.fake.connections.length > 1, "connection #2");
  const next = x.fake.connections[1] as (typeof x.fake.connections)[number];
  await eventually(() => next.identified, "a session on the new connection");
  if (e.outcome === "resumed") expect(next.resumedSession).toBe(session);
  else if (e.outcome === "identified") {
    expect(next.resumedSession).toBeUndefined();
    expect(x.fake.sessions.current?.id).not.toBe(session);
  } else throw new Error(`a close cannot end ${e.outcome}`);
}

async function restRow(
  x: Rigged,
  answer: { status: number; headers: Record<string, string>; body: unknown },
  e: Expect,
): Promise<void> {
  if (e.outcome !== "send-failed") throw new Error(`a REST answer cannot end ${e.outcome}`);
  x.fake.failNext("^POST /channels/\\d+/messages$", answer);
  const err = await x.gateway.send("800000000000000001", "hello", { idempotencyKey: "fx", attempt: 1 }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isGatewaySendError(err), "a GatewaySendError").toBe(true);
  const failure = err as { permanent: boolean; credentials?: boolean; retryAfterMs?: number };
  const kind = failure.credentials ? "credentials" : failure.permanent ? "permanent" : "retry";
  expect(kind).toBe(e.kind);
  if (e.retryAfterMs !== undefined) expect(failure.retryAfterMs).toBe(e.retryAfterMs);
}
