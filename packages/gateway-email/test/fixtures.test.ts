// Every raw mail in testkit/fixtures/email, through the real mailbox: appended to Dovecot (as a
// delivery agent would), read by the gateway's IMAP poll inside a real session (testkit's fixture
// runner), and judged by what the session got: delivered (text, author, thread), ignored (the
// logged reason), or decided, the outcomes every adapter's table shares. A
// decision fixture first gets a real approval request to answer ({{requestSubject}} and
// {{requestMessageId}} are that request mail's). A new fixture file is a new row.
import { dovecotMissing } from "@agentsvc/testkit";
import { expectCommonOutcome, loadFixtures, runFixtureGateway } from "@agentsvc/testkit/session";
import { describe, expect, it } from "vitest";
import { createGateway, type EmailGatewayOptions } from "../src/index.js";
import { emailHarness } from "./harness.js";
import { until, useDovecot } from "./rig.js";

type Expect =
  | {
      outcome: "delivered";
      text: string;
      author: string;
      thread: string;
      /** The refs handed over (this table's entry has no media block: parts are refused, not stored). */
      attachments?: unknown[];
      /** The addresses the agent's reply goes to (default: the author). */
      replyTo?: string[];
      /** A reply sent back through the gateway (cut and rendered as the session does): its text and HTML parts. */
      reply?: { markdown: string; text: string; html: string };
    }
  | { outcome: "ignored"; reason: string }
  | { outcome: "decided"; decision: "approve" | "reject"; by: string };
interface Fixture {
  source: string;
  case: string;
  /** The mail as it lies in the mailbox (RFC 5322), lines joined by \n. */
  payload: string;
  /** Entry keys of this row (default: trustedAuthservIds mx.google.com only). */
  entry?: Partial<EmailGatewayOptions>;
  expect: Expect;
}

const FIXTURES = loadFixtures<Fixture>("email").map((fx) => ({ file: fx.file, fx }));

const dovecot = useDovecot();

const REQUEST = /\[agentsvc:(req_[^\]]+)\]/;

describe.skipIf(dovecotMissing !== undefined)("email fixtures through Dovecot", () => {
  it("cover the minimum case list, each citing its source", () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(15);
    for (const { file, fx } of FIXTURES) {
      expect(fx.source, file).toMatch(/^https:\/\//);
      expect(fx.case, file).toBeTruthy();
    }
    const outcomes = new Set(FIXTURES.map(({ fx }) => fx.expect.outcome));
    expect([...outcomes].sort()).toEqual(["decided", "delivered", "ignored"]);
  });

  for (const { file, fx } of FIXTURES) {
    it(`${file}: ${fx.case} -> ${fx.expect.outcome}`, async () => {
      const { box } = await emailHarness(await dovecot.started());
      const gateway = createGateway({
        ...box.options({ trustedAuthservIds: ["mx.google.com"], ...fx.entry }),
        name: "email",
      });
      const run = await runFixtureGateway(gateway).catch(async (err: unknown) => {
        await box.close();
        throw err;
      });
      dovecot.onCleanup(async () => {
        await run.rig.stop();
        await box.close();
      });
      let raw = fx.payload;
      let requestId: string | undefined;
      let token: string | undefined;
      if (raw.includes("{{requestMessageId}}")) {
        // The request this reply answers, asked by the fixture's sender (with a passing DMARC).
        token = `tok${file.replace(/\W/g, "")}`;
        const sender = /^From: .*<([^>]+)>/m.exec(raw)?.[1] ?? "ann@example.com";
        await box.append({
          messageId: `<ask.${token}@example.com>`,
          from: sender,
          subject: "Cleanup",
          text: `please use delete_file ${token}`,
          headers: {
            "Authentication-Results": `mx.google.com; dmarc=pass header.from=${sender.split("@")[1]}`,
          },
        });
        await until(() => box.sink.mails.some((m) => REQUEST.test(m.subject ?? "")), "the request mail");
        const request = box.sink.mails.find((m) => REQUEST.test(m.subject ?? ""));
        requestId = REQUEST.exec(request?.subject ?? "")?.[1];
        raw = raw
          .replaceAll("{{requestSubject}}", (request?.subject ?? "").replace(/^Re: /, ""))
          .replaceAll("{{requestMessageId}}", request?.messageId ?? "");
        run.seen.length = 0;
      }
      const sentBefore = box.sink.mails.length;
      const appended = (await box.observer.append("INBOX", raw.replace(/\r?\n/g, "\r\n"))) || undefined;
      const uid = appended?.uid as number;
      const want = fx.expect;

      expect(await expectCommonOutcome(run, want, requestId), `${file}: ${want.outcome}`).toBe(true);
      if (want.outcome === "delivered") {
        if (want.attachments) expect(run.seen[0]?.attachments).toEqual(want.attachments);
        await box.waitSeen(uid);
        if (want.replyTo) {
          await until(() => box.sink.mails.length > sentBefore, "the reply");
          const reply = box.sink.mails[sentBefore];
          expect(reply?.to && "value" in reply.to ? reply.to.value.map((a) => a.address) : []).toEqual(
            want.replyTo,
          );
        }
        if (want.reply) {
          await run.rig.session.idle(10_000);
          const sent = box.sink.mails.length;
          for (const [i, piece] of (gateway.chunk?.(want.reply.markdown) ?? []).entries())
            await gateway.send(want.thread, piece, { idempotencyKey: `reply:${i}`, attempt: 1 });
          await until(() => box.sink.mails.length > sent, "the reply through the gateway");
          const mail = box.sink.mails.at(-1);
          expect(mail?.text?.trim()).toBe(want.reply.text);
          expect(String(mail?.html).trim()).toBe(want.reply.html);
        }
        return;
      }
      if (want.outcome === "ignored") {
        // Nothing sent, and the mail stays unread (a person may still read it).
        expect(box.sink.mails).toHaveLength(sentBefore);
        expect(await box.seen(uid)).toBe(false);
        if (requestId) {
          expect((await run.rig.session.interaction(requestId))?.status).toBe("open");
          expect(run.rig.executed.some((n) => n.includes(token as string))).toBe(false);
        }
        return;
      }
      await run.rig.session.idle(10_000);
      expect(run.seen.map((d) => d.author.id)).toEqual([want.by]);
      expect(run.rig.executed.some((n) => n.includes(token as string))).toBe(want.decision === "approve");
    });
  }
});
