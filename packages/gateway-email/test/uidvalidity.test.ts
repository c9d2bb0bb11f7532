// UIDVALIDITY (RFC 9051 section 2.3.1.1): when a mailbox is deleted and created again its UIDs start
// over under a new UIDVALIDITY, so the kept UID cursor means nothing there any more. The gateway
// must read that mailbox again, not wait for UIDs above the old cursor.
import { describe, expect, it } from "vitest";
import { dovecotMissing } from "@agentsvc/testkit";
import { composeMail } from "./harness.js";
import { emailRig, until, useDovecot } from "./rig.js";

const { started: server, onCleanup } = useDovecot();

const mail = (n: number) => ({
  messageId: `<uv${n}@example.test>`,
  from: "fay@example.test",
  subject: `Mail ${n}`,
  text: `number ${n} tokUV${n}`,
});

describe.skipIf(dovecotMissing !== undefined)("UIDVALIDITY against Dovecot", () => {
  it("a mailbox deleted and created again (new UIDVALIDITY) is read again from its first message", async () => {
    const d = await server();
    // The mailbox the gateway reads is created before it starts (INBOX cannot be deleted).
    const { rig, box, close } = await emailRig(d, { mailbox: "Agent" }, async (b) => {
      await b.observer.mailboxCreate("Agent");
    });
    onCleanup(close);
    const append = async (n: number) => {
      const r = (await box.observer.append("Agent", composeMail(mail(n)))) || undefined;
      if (!r?.uid) throw new Error("APPEND returned no UID");
      return r;
    };
    for (const n of [1, 2, 3]) await append(n);
    await until(() => box.sink.mails.length === 3, "replies to the first three");
    const before = (await box.observer.status("Agent", { uidValidity: true })) || undefined;
    await box.observer.mailboxDelete("Agent");
    // Created again once the gateway's session has let go of the old one (its poll fails while the
    // mailbox is gone). Creating it under a session that still has it selected makes Dovecot refuse
    // every APPEND to the new one ("Mailbox was deleted under us").
    await until(
      () => rig.lines.some((l) => String(l.msg).startsWith("IMAP poll failed")),
      "a poll of the missing mailbox",
    );
    await box.observer.mailboxCreate("Agent");
    const after = await append(4);
    expect(after.uidValidity).not.toBe(before?.uidValidity);
    expect(after.uid).toBe(1);
    await until(() => box.sink.mails.length === 4, "the reply to the first mail of the new mailbox", 10_000);
    await rig.session.idle(10_000);
    expect(box.sink.mails.map((m) => m.inReplyTo)).toEqual([
      "<uv1@example.test>",
      "<uv2@example.test>",
      "<uv3@example.test>",
      "<uv4@example.test>",
    ]);
  });
});
