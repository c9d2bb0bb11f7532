// A reply's file as a MIME attachment through real SMTP (the sink parses what was sent), threaded
// into the conversation like a text reply.
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { answeredConversation, until, useDovecot } from "./rig.js";

const dovecot = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("email files out", () => {
  it("sends a file as a MIME attachment of a threaded reply, bytes, name and type intact", async () => {
    const rigged = await dovecot.rig();
    const { box } = rigged;
    const gateway = await answeredConversation(rigged, {
      id: "f1",
      subject: "The report",
      text: "send me the report",
    });
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(40_000, 7)]);
    const file: OutboundFile = {
      blob: "0".repeat(64),
      name: "report.pdf",
      contentType: "application/pdf",
      size: pdf.length,
      bytes: async () => pdf,
      caption: "Here is the report.",
    };
    await gateway.sendFile("<f1@example.test>", file, {
      idempotencyKey: "file-1",
      attempt: 1,
    });
    await until(() => box.sink.mails.length === 2, "the mail with the file");
    const mail = box.sink.mails[1];
    expect(mail?.subject).toBe("Re: The report");
    expect(mail?.inReplyTo).toBe("<f1@example.test>");
    expect(mail?.text?.trim()).toBe("Here is the report.");
    expect(mail?.attachments).toHaveLength(1);
    expect(mail?.attachments[0]).toMatchObject({ filename: "report.pdf", contentType: "application/pdf" });
    expect(mail?.attachments[0]?.content.equals(pdf)).toBe(true);
  });
});
