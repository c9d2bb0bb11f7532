// Every documented Discord payload in testkit/fixtures/discord, run through the fake gateway
// connection (dispatches, close frames) or the fake REST API (send failures). A new fixture file
// is a new row; this file changes only for a new kind of outcome.
import type { Inbound } from "@agentsvc/adapter-kit";
import { encodeDecision, isGatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, within } from "@agentsvc/testkit";
import { loadFixtures } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { nextConnection, type Rigged, startRig, stopRig } from "./rig.js";

type Frame = { op: 0; s: number; t: string; d: Record<string, unknown> };
type Expect =
  | {
      outcome: "delivered";
      text: string;
      author: string;
      authorName: string;
      thread: string;
      /** The refs handed over (this table's entry has no media block: files are refused, not fetched). */
      attachments?: unknown[];
    }
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

const FIXTURES = loadFixtures<Fixture>("discord").map((fx) => ({ file: fx.file, fx }));
/** The ids the fixtures were written with. */
const BOT = "900000000000000001";
const GUILD = "600000000000000001";
const HINT = /Message Content Intent/;

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

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
      r = await startRig();
      expect(r.h.fake.botUserId).toBe(BOT);
      const payload = fx.payload;
      if ("close" in payload) return closeRow(r, payload, fx.expect);
      if ("rest" in payload) return restRow(r, payload.rest, fx.expect);
      const delivered: Inbound[] = [];
      r.rig.deliverHook = (inbound, next) => {
        delivered.push(inbound);
        return next(inbound);
      };
      for (const frame of fx.before ?? []) r.h.fake.sessions.replay(frame);
      if (fx.given) return decisionRow(r, fx.given, payload, fx.expect);
      const seq = r.h.fake.sessions.replay(payload);
      await within(r.h.fake.sessions.acked(seq), 5_000, `the adapter recording ${file}`);
      const e = fx.expect;
      if (e.outcome === "delivered") {
        expect(delivered).toHaveLength(1);
        expect(delivered[0]).toMatchObject({
          text: e.text,
          thread: e.thread,
          author: { id: e.author, displayName: e.authorName, isBot: false },
        });
        if (e.attachments) expect(delivered[0]?.attachments).toEqual(e.attachments);
      } else if (e.outcome === "ignored") {
        expect(delivered).toEqual([]);
        const reasons = r.h.logs
          .filter((l) => l.level === 20 && l.msg === "ignored")
          .map((l) => String(l.reason));
        expect(reasons.join(" | ")).toContain(e.reason);
      } else throw new Error(`${file}: outcome ${e.outcome} needs a frame of another kind`);
      const hinted = r.h.logs.some((l) => HINT.test(l.msg));
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
  x.h.fake.sessions.userSays({
    channelId: given.channel,
    guildId: GUILD,
    authorId: given.approvalRequestedBy,
    content: "please use delete_file fx1",
    mention: true,
  });
  await eventually(
    () => x.rig.session.snapshot("discord", given.channel).pendingRequestId !== undefined,
    "the approval request",
  );
  const requestId = x.rig.session.snapshot("discord", given.channel).pendingRequestId as string;
  await eventually(() => x.h.fake.rest.botMessages.some((m) => m.components?.length), "the card");
  const card = x.h.fake.rest.botMessages.find((m) => m.components?.length) as { id: string; content: string };
  const filled = JSON.parse(
    JSON.stringify(frame)
      .replaceAll("{{approve}}", encodeDecision(requestId, "approve"))
      .replaceAll("{{reject}}", encodeDecision(requestId, "reject"))
      .replaceAll("{{card}}", card.id)
      .replaceAll("{{prompt}}", JSON.stringify(card.content).slice(1, -1)),
  ) as Frame;
  x.h.fake.sessions.replay(filled);
  const interactionId = filled.d.id as string;
  await eventually(() => x.h.fake.rest.callbacks.get(interactionId) !== undefined, "the callback", 3_000);
  const callback = x.h.fake.rest.callbacks.get(interactionId);
  if (e.outcome === "decided") {
    expect(callback?.type).toBe(7);
    expect(String(callback?.data?.content)).toContain(
      `${e.decision === "approve" ? "Approved" : "Rejected"} by <@${e.by}>`,
    );
    if (e.decision === "approve")
      await eventually(() => x.rig.executed.some((n) => n.includes("fx1")), "the tool running");
    expect(x.rig.session.snapshot("discord", given.channel).pendingRequestId).toBeUndefined();
  } else if (e.outcome === "refused") {
    expect(callback).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(x.rig.session.snapshot("discord", given.channel).pendingRequestId).toBe(requestId);
    expect(x.rig.executed).toEqual([]);
  } else throw new Error(`a button press cannot end ${e.outcome}`);
}

async function closeRow(x: Rigged, close: { close: number; reason: string }, e: Expect): Promise<void> {
  const session = x.h.fake.sessions.current?.id;
  x.h.fake.sessions.closeWith(close.close, close.reason);
  if (e.outcome === "stopped") {
    await eventually(() => x.h.built.at(-1)?.halted === true, "stopped");
    await new Promise((res) => setTimeout(res, 300));
    expect(x.h.fake.connections).toHaveLength(1);
    // Bad credentials stop the gateway through the session (its status has the reason); other
    // fatal closes log the cause on the gateway's logger.
    const errors = x.h.logs.filter((l) => l.level === 50).map((l) => l.msg);
    const status = x.rig.session.status().discord;
    expect([...errors, status?.reason ?? ""].join(" | ")).toContain(e.reason);
    return;
  }
  const next = await nextConnection(x, 1);
  await eventually(() => next.identified, "a session on the new connection");
  if (e.outcome === "resumed") expect(next.resumedSession).toBe(session);
  else if (e.outcome === "identified") {
    expect(next.resumedSession).toBeUndefined();
    expect(x.h.fake.sessions.current?.id).not.toBe(session);
  } else throw new Error(`a close cannot end ${e.outcome}`);
}

async function restRow(
  x: Rigged,
  answer: { status: number; headers: Record<string, string>; body: unknown },
  e: Expect,
): Promise<void> {
  if (e.outcome !== "send-failed") throw new Error(`a REST answer cannot end ${e.outcome}`);
  x.h.fake.failNext("^POST /channels/\\d+/messages$", answer);
  const err = await x.rig.gateway
    .send("800000000000000001", "hello", { idempotencyKey: "fx", attempt: 1 })
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(isGatewaySendError(err), "a GatewaySendError").toBe(true);
  const failure = err as { permanent: boolean; credentials?: boolean; retryAfterMs?: number };
  const kind = failure.credentials ? "credentials" : failure.permanent ? "permanent" : "retry";
  expect(kind).toBe(e.kind);
  if (e.retryAfterMs !== undefined) expect(failure.retryAfterMs).toBe(e.retryAfterMs);
}
