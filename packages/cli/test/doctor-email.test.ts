// `agentsvc doctor` on an e-mail entry: an IMAP login against a real Dovecot and SMTP EHLO + AUTH
// against a real SMTP server (smtp-server: STARTTLS, then AUTH PLAIN/LOGIN, 535 for a wrong
// password as RFC 4954 section 6 says), both on 127.0.0.1 with a throwaway certificate.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Dovecot, dovecotMissing, type SmtpSink, startDovecot, startSmtpSink } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAdapters, run, tempDir, writeFiles } from "./helpers.js";

interface Report {
  ok: boolean;
  checks: { check: string; status: string; detail: string; fix?: string }[];
}

describe.skipIf(dovecotMissing)("agentsvc doctor: e-mail", () => {
  let dovecot: Dovecot;
  let smtp: SmtpSink;
  let dir: string;
  let env: Record<string, string>;

  const entry = (extra = "") =>
    `type: email\nimapHostEnvVar: MAIL_HOST\nimapUsernameEnvVar: IMAP_USER\nimapPasswordEnvVar: IMAP_PASS\nfromAddressEnvVar: MAIL_FROM\nsmtpUsernameEnvVar: SMTP_USER\nsmtpPasswordEnvVar: SMTP_PASS\nimapPort: ${dovecot.port}\nsmtpPort: ${smtp.port}\n${extra}`;

  beforeAll(async () => {
    dovecot = await startDovecot();
    smtp = await startSmtpSink({ key: dovecot.key, cert: dovecot.cert });
    const mailbox = dovecot.takeUser();
    dir = linkAdapters(tempDir("agentsvc-doctor-email-"));
    writeFileSync(join(dir, "ca.pem"), dovecot.cert);
    writeFiles(dir, {
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "gateways/email.yaml": entry("tlsCaFile: ca.pem\n"),
    });
    env = {
      MAIL_HOST: "127.0.0.1",
      IMAP_USER: mailbox.user,
      IMAP_PASS: mailbox.pass,
      MAIL_FROM: "bot@example.test",
      SMTP_USER: smtp.user,
      SMTP_PASS: smtp.pass,
    };
  });

  afterAll(async () => {
    await smtp?.close();
    await dovecot?.close();
  });

  it("logs in over IMAP and authenticates over SMTP with working credentials", async () => {
    const r = await run(["doctor", dir, "--json"], { env });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks).toEqual([
      { check: "email IMAP login", status: "ok", detail: `${env.IMAP_USER} at 127.0.0.1:${dovecot.port}` },
      { check: "email SMTP EHLO + AUTH", status: "ok", detail: `${smtp.user} at 127.0.0.1:${smtp.port}` },
    ]);
    expect(r.code).toBe(0);
    expect(smtp.mails).toEqual([]);
  });

  it("reports a wrong IMAP password and a wrong SMTP password, each with its fix, and exits 1", async () => {
    const r = await run(["doctor", dir], { env: { ...env, IMAP_PASS: "wrong", SMTP_PASS: "wrong" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED\s+email IMAP login\s+\S+ at 127\.0\.0\.1:\d+: AUTHENTICATIONFAILED/);
    expect(r.stdout).toMatch(/fix: the server refused IMAP_USER \/ IMAP_PASS: put the mailbox's user name/);
    expect(r.stdout).toMatch(/FAILED\s+email SMTP EHLO \+ AUTH\s+bot@example\.test at 127\.0\.0\.1:\d+: 535/);
    expect(r.stdout).toMatch(/fix: the server refused SMTP_USER \/ SMTP_PASS: put the SMTP user name/);
    expect(r.stdout).toContain("2 of 2 checks failed");
  });

  it("names tlsCaFile when the servers' certificate is not trusted, and the host variable when nothing answers", async () => {
    const untrusted = linkAdapters(tempDir("agentsvc-doctor-email-ca-"));
    writeFiles(untrusted, {
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "gateways/email.yaml": entry(),
    });
    const report = JSON.parse((await run(["doctor", untrusted, "--json"], { env })).stdout) as Report;
    expect(report.checks.map((c) => [c.check, c.status, c.fix])).toEqual([
      [
        "email IMAP login",
        "failed",
        "the server certificate was not accepted: set tlsCaFile in the entry to the PEM file of the CA that signed it",
      ],
      [
        "email SMTP EHLO + AUTH",
        "failed",
        "the server certificate was not accepted: set tlsCaFile in the entry to the PEM file of the CA that signed it",
      ],
    ]);
    await dovecot.stop();
    try {
      const down = JSON.parse((await run(["doctor", dir, "--json"], { env })).stdout) as Report;
      expect(down.checks[0]).toMatchObject({
        check: "email IMAP login",
        status: "failed",
        detail: `127.0.0.1:${dovecot.port}: ECONNREFUSED`,
        fix: `nothing answered as a mail server at 127.0.0.1:${dovecot.port}: check MAIL_HOST and the entry's port`,
      });
    } finally {
      await dovecot.start();
    }
  });
});
