// A reply's file as a MIME attachment through real SMTP (the sink parses what was sent), threaded
// into the conversation like a text reply.
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { type Dovecot, dovecotMissing, startDovecot } from "@agentsvc/testkit";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { EmailGateway } from "../src/index.js";
import { emailRig, until } from "./rig.js";

let dovecot: Dovecot | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});
afterAll(async () => {
  await dovecot?.close();
});

describe.skipIf(dovecotMissing !== undefined)("email files out", () => {
  it("sends a file as a MIME attachment of a threaded reply, bytes, name and type intact", async () => {
    dovecot ??= await startDovecot();
    const { rig, box, close } = await emailRig(dovecot);
    cleanup = close;
    await box.append({
      messageId: "<f1@example.test>",
      from: "ann@example.test",
      subject: "The report",
      text: "send me the report",
    });
    await until(() => box.sink.mails.length === 1, "the text reply");
    await rig.session.idle(10_000);
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(40_000, 7)]);
    const file: OutboundFile = {
      blob: "0".repeat(64),
      name: "report.pdf",
      contentType: "application/pdf",
      size: pdf.length,
      bytes: async () => pdf,
      caption: "Here is the report.",
    };
    await (rig.gateway as EmailGateway).sendFile("<f1@example.test>", file, {
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
