// A `type: email` entry through the built bin, against the test Dovecot (IMAP over TLS) and an SMTP
// sink (STARTTLS) from testkit: a mail appended to the inbox is polled, and the agent's answer is
// sent back to its sender as a reply in the same thread. A relative `tlsCaFile` is read from the
// project folder by start, as doctor reads it, whatever the working directory. A schedule to the
// entry sends a new mail with the `subject` its `to` gives.
import { connect } from "node:tls";
import {
  type Dovecot,
  dovecotMissing,
  eventually,
  type SmtpSink,
  startDovecot,
  startSmtpSink,
} from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

const BOT = "bot@example.test";

/** IMAP APPEND over TLS, as a delivery agent would (LOGIN, then the message as a literal). */
function append(dovecot: Dovecot, user: string, pass: string, mail: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: "127.0.0.1",
      port: dovecot.port,
      ca: dovecot.cert,
      servername: "localhost",
    });
    let buffer = "";
    let step = 0;
    socket.setEncoding("utf8");
    socket.on("error", reject);
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (step === 0 && /^\* OK/m.test(buffer)) {
        step = 1;
        socket.write(`a1 LOGIN ${user} ${pass}\r\n`);
      } else if (step === 1 && /^a1 OK/m.test(buffer)) {
        step = 2;
        socket.write(`a2 APPEND INBOX {${Buffer.byteLength(mail)}}\r\n`);
      } else if (step === 2 && /^\+/m.test(buffer)) {
        step = 3;
        socket.write(`${mail}\r\n`);
      } else if (step === 3 && /^a2 OK/m.test(buffer)) {
        socket.end("a3 LOGOUT\r\n");
        resolve();
      } else if (/^a\d (NO|BAD)/m.test(buffer)) {
        socket.destroy();
        reject(new Error(`IMAP refused: ${buffer}`));
      }
    });
  });
}

const mail = (messageId: string, text: string) =>
  [
    "From: Ann Example <ann@example.test>",
    `To: ${BOT}`,
    "Subject: Lights",
    `Message-ID: ${messageId}`,
    `Date: ${new Date().toUTCString()}`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    text,
    "",
  ].join("\r\n");

describe.skipIf(dovecotMissing !== undefined)("agentsvc start: a type: email entry", () => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let served: Served;
  let account: { user: string; pass: string };

  beforeAll(async () => {
    dovecot = await startDovecot();
    sink = await startSmtpSink(dovecot);
    account = dovecot.takeUser();
    const dir = tempDir("agentsvc-email-");
    writeFiles(dir, {
      "agents/bot.mjs": BOT_AGENT,
      // Read from the project folder, whatever the working directory (the bin runs from the repo root).
      "mail-ca.pem": dovecot.cert,
      "gateways/email.yaml": [
        "type: email",
        "imapHostEnvVar: IMAP_HOST",
        "imapUsernameEnvVar: IMAP_USER",
        "imapPasswordEnvVar: IMAP_PASS",
        "fromAddressEnvVar: MAIL_FROM",
        "smtpUsernameEnvVar: SMTP_USER",
        "smtpPasswordEnvVar: SMTP_PASS",
        `imapPort: ${dovecot.port}`,
        `smtpPort: ${sink.port}`,
        "pollIntervalSeconds: 1",
        "tlsCaFile: mail-ca.pem",
        "",
      ].join("\n"),
      // A new mail (not a reply) every other second, with the subject the schedule's `to` gives.
      "schedules/report.yaml":
        "cron: '*/2 * * * * *'\nprompt: Report on the lights\nto: { gateway: email, thread: ann@example.test, subject: Lights report }\n",
    });
    linkPackages(dir, { "@agentsvc/gateway-email": "packages/gateway-email" });
    const env = {
      IMAP_HOST: "127.0.0.1",
      IMAP_USER: account.user,
      IMAP_PASS: account.pass,
      MAIL_FROM: BOT,
      SMTP_USER: sink.user,
      SMTP_PASS: sink.pass,
    };
    served = await serveBin(["start", dir, "--port", "0"], env);
  }, 90_000);
  afterAll(async () => {
    await served?.stop();
    await sink?.close();
    await dovecot?.close();
  });

  it("answers a mail in the inbox by mail to its sender, in the same thread", async () => {
    await append(dovecot, account.user, account.pass, mail("<lights-1@example.test>", "are the lights on?"));
    const replyOf = () => sink.mails.find((m) => m.inReplyTo === "<lights-1@example.test>");
    await eventually(() => replyOf() !== undefined, "the reply mail", 30_000);
    const reply = replyOf();
    expect(reply?.to).toMatchObject({ value: [{ address: "ann@example.test" }] });
    expect(reply?.subject).toBe("Re: Lights");
    expect(reply?.inReplyTo).toBe("<lights-1@example.test>");
    expect(reply?.text).toContain("are the lights on?");
  }, 60_000);

  it("a schedule to the entry composes a new mail with its `to`'s subject", async () => {
    const reportOf = () => sink.mails.find((m) => m.text?.includes("Report on the lights"));
    await eventually(() => reportOf() !== undefined, "the scheduled mail", 30_000);
    const report = reportOf();
    expect(report?.to).toMatchObject({ value: [{ address: "ann@example.test" }] });
    expect(report?.subject).toBe("Lights report");
    expect(report?.inReplyTo).toBeUndefined();
  }, 60_000);
});
