// A scheduled reply (the run's origin meta names `scheduled.subject`) composes a new mail through
// real SMTP: the schedule's subject as it is, no In-Reply-To or References (RFC 5322 §3.6.4 threads
// by them), to the conversation's address; an ordinary reply in the same thread stays threaded.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { answeredConversation, until, useDovecot } from "./rig.js";

const dovecot = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("a scheduled mail", () => {
  it("is a new message with the schedule's subject, to a bare address and to a known conversation's sender", async () => {
    const rigged = await dovecot.rig();
    const { box } = rigged;
    const gateway = await answeredConversation(rigged, {
      id: "c1",
      subject: "The report",
      text: "send me the report",
    });
    const scheduled = { scheduled: { subject: "Weekly report" } };
    await gateway.send("bob@example.test", "Here is this week's report.", {
      idempotencyKey: "s-1",
      attempt: 1,
      meta: scheduled,
    });
    await gateway.send("<c1@example.test>", "A new week, a new report.", {
      idempotencyKey: "s-2",
      attempt: 1,
      meta: scheduled,
    });
    await until(() => box.sink.mails.length === 3, "the two scheduled mails");
    const [toBob, toAnn] = box.sink.mails.slice(1);
    expect(toBob).toMatchObject({ subject: "Weekly report", to: { text: "bob@example.test" } });
    expect(toAnn).toMatchObject({ subject: "Weekly report", to: { text: "ann@example.test" } });
    for (const mail of [toBob, toAnn]) {
      expect(mail?.inReplyTo).toBeUndefined();
      expect(mail?.references).toBeUndefined();
    }
    expect(box.sink.mails[0]).toMatchObject({ subject: "Re: The report", inReplyTo: "<c1@example.test>" });
  });
});
