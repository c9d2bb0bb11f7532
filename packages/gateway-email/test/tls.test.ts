// A private CA: the test Dovecot and SMTP sink present a self-signed certificate. Without trusting
// it the connection fails with a message that names the fix; with `tlsCaFile` naming its PEM file
// both IMAP and SMTP verify against it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isGatewaySendError } from "@agentsvc/adapter-kit";
import { describe, expect, it } from "vitest";
import { sendMail, smtpTransport } from "../src/api.js";
import { dovecotMissing } from "@agentsvc/testkit";
import { emailRig, until, useDovecot } from "./rig.js";
import { startSmtpSink } from "@agentsvc/testkit";

const { started: server, onCleanup } = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("TLS with a private CA against Dovecot", () => {
  it("an untrusted server certificate fails the poll with an error naming tlsCaFile and NODE_EXTRA_CA_CERTS", async () => {
    const { rig, close } = await emailRig(await server(), { tlsCa: undefined });
    onCleanup(close);
    const failed = () => rig.lines.find((l) => String(l.msg).startsWith("IMAP poll failed"));
    await until(() => failed() !== undefined, "a failed poll");
    const msg = String(failed()?.msg);
    expect(msg).toContain("certificate");
    expect(msg).toContain("set tlsCaFile");
    expect(msg).toContain("NODE_EXTRA_CA_CERTS");
  });

  it("SMTP: an untrusted certificate is a retried send error naming tlsCaFile", async () => {
    const sink = await startSmtpSink(await server());
    const transport = smtpTransport({ host: "127.0.0.1", port: sink.port, user: sink.user, pass: sink.pass });
    try {
      const failure = await sendMail(transport, "SMTP_PASS", {
        from: "bot@example.test",
        to: "ann@example.test",
        subject: "s",
        text: "t",
        messageId: "<tls-smtp@example.test>",
      }).catch((err: unknown) => err);
      expect(isGatewaySendError(failure)).toBe(true);
      expect(String((failure as Error).message)).toContain("set tlsCaFile");
      expect((failure as { permanent: boolean }).permanent).toBe(false);
      expect((failure as { credentials: boolean }).credentials).toBe(false);
      expect(sink.mails).toHaveLength(0);
    } finally {
      transport.close();
      await sink.close();
    }
  });

  it("tlsCaFile: IMAP and SMTP both trust the CA in the file, and a reply goes out", async () => {
    const d = await server();
    const dir = mkdtempSync(join(tmpdir(), "agentsvc-ca-"));
    const caFile = join(dir, "ca.pem");
    writeFileSync(caFile, d.cert);
    const { box, close } = await emailRig(d, { tlsCa: undefined, tlsCaFile: caFile });
    onCleanup(close);
    await box.append({
      messageId: "<tls1@example.test>",
      from: "hal@example.test",
      subject: "TLS",
      text: "over a private CA",
    });
    await until(() => box.sink.mails.length === 1, "the reply");
    expect(box.sink.mails[0]?.inReplyTo).toBe("<tls1@example.test>");
  });

  it("a tlsCaFile that cannot be read fails the start naming the key and the path", async () => {
    await expect(
      emailRig(await server(), { tlsCa: undefined, tlsCaFile: "/nonexistent/ca.pem" }),
    ).rejects.toThrow(/tlsCaFile: cannot read \/nonexistent\/ca\.pem/);
  });
});
