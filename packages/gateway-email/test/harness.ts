// One mailbox on the shared Dovecot and one SMTP sink per harness, plus an observer connection
// that appends mail (IMAP APPEND, as a delivery agent would) and watches for the \Seen flag,
// which is the gateway's acknowledgement.
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { ImapFlow } from "imapflow";
import type { ParsedMail } from "mailparser";
import { createGateway, type EmailGatewayOptions } from "../src/index.js";
import type { Dovecot } from "@agentsvc/testkit";
import { type SmtpSink, startSmtpSink } from "@agentsvc/testkit";

export const BOT = "bot@example.test";
/** The receiving server of the test mailboxes, as its Authentication-Results headers name it. */
export const MX = "mx.example.test";
/** What that server writes for mail whose From domain passed DMARC (RFC 8601 section 2.2). */
export const DMARC_PASS = {
  "Authentication-Results": `${MX}; dmarc=pass (p=reject dis=none) header.from=example.test`,
};

export interface RawMail {
  messageId: string;
  from: string;
  subject: string;
  text: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}

export function composeMail(m: RawMail): string {
  const lines = [
    `From: ${m.from}`,
    `To: ${BOT}`,
    `Subject: ${m.subject}`,
    `Message-ID: ${m.messageId}`,
    `Date: ${new Date().toUTCString()}`,
    ...(m.inReplyTo ? [`In-Reply-To: ${m.inReplyTo}`] : []),
    ...(m.references?.length ? [`References: ${m.references.join(" ")}`] : []),
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    m.text,
    "",
  ];
  return lines.join("\r\n");
}

export interface Mailbox {
  user: string;
  pass: string;
  sink: SmtpSink;
  readonly observer: ImapFlow;
  /** A new observer connection (after the server was restarted). */
  reconnect(): Promise<void>;
  options(extra?: Partial<EmailGatewayOptions>): EmailGatewayOptions;
  append(mail: RawMail, seen?: boolean): Promise<number>;
  seen(uid: number): Promise<boolean>;
  waitSeen(uid: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function mailbox(dovecot: Dovecot): Promise<Mailbox> {
  const { user, pass } = dovecot.takeUser();
  const sink = await startSmtpSink(dovecot);
  const open = async () => {
    const client = new ImapFlow({
      host: "127.0.0.1",
      port: dovecot.port,
      secure: true,
      auth: { user, pass },
      tls: { ca: dovecot.cert },
      logger: false,
    });
    client.on("error", () => undefined);
    await client.connect();
    await client.mailboxOpen("INBOX");
    return client;
  };
  let observer = await open();
  const seen = async (uid: number) => {
    const m = (await observer.fetchOne(String(uid), { flags: true }, { uid: true })) || undefined;
    return Boolean(m?.flags?.has("\\Seen"));
  };
  return {
    user,
    pass,
    sink,
    get observer() {
      return observer;
    },
    reconnect: async () => {
      observer.close();
      observer = await open();
    },
    options: (extra = {}) => ({
      imapHostEnvVar: "IMAP_HOST",
      imapUsernameEnvVar: "IMAP_USER",
      imapPasswordEnvVar: "IMAP_PASS",
      fromAddressEnvVar: "MAIL_FROM",
      smtpUsernameEnvVar: "SMTP_USER",
      smtpPasswordEnvVar: "SMTP_PASS",
      imapPort: dovecot.port,
      smtpPort: sink.port,
      env: {
        IMAP_HOST: "127.0.0.1",
        IMAP_USER: user,
        IMAP_PASS: pass,
        MAIL_FROM: BOT,
        SMTP_USER: sink.user,
        SMTP_PASS: sink.pass,
      },
      pollIntervalMs: 100,
      retryMaxMs: 1_000,
      tlsCa: dovecot.cert,
      trustedAuthservIds: [MX],
      ...extra,
    }),
    append: async (mail, isSeen = false) => {
      const result =
        (await observer.append("INBOX", composeMail(mail), isSeen ? ["\\Seen"] : [])) || undefined;
      if (!result?.uid) throw new Error("APPEND returned no UID");
      return result.uid;
    },
    seen,
    waitSeen: async (uid, timeoutMs = 3_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await seen(uid))) {
        if (Date.now() > deadline)
          throw new Error(`message uid ${uid} was not marked \\Seen within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: async () => {
      await observer.logout().catch(() => undefined);
      await sink.close();
    },
  };
}

/** The thread a sent mail belongs to, as a mail client groups it: the root of its References. */
export const threadOfSent = (m: ParsedMail): string | undefined => {
  const refs = Array.isArray(m.references) ? m.references : m.references ? m.references.split(/\s+/) : [];
  return refs[0] ?? m.inReplyTo;
};

export async function emailHarness(dovecot: Dovecot): Promise<GatewayHarness & { box: Mailbox }> {
  const box = await mailbox(dovecot);
  // Two conversations already in the mailbox (read), started by two people.
  const roots: [string, string] = [`<root-1.${box.user}@example.test>`, `<root-2.${box.user}@example.test>`];
  for (const [i, root] of roots.entries())
    await box.append(
      { messageId: root, from: `user-${i + 1}@example.test`, subject: `Thread ${i + 1}`, text: "hi" },
      true,
    );
  return {
    box,
    threads: roots,
    // The UID cursor: a mail whose recording failed must be read again (contract cursor case).
    cursor: true,
    gateway: () => createGateway({ ...box.options(), name: "email" }),
    inject: async (m) => {
      const uid = await box.append({
        messageId: `<${m.id}@example.test>`,
        from: `${m.author}@example.test`,
        subject: "Re: Thread",
        text: m.text,
        inReplyTo: m.thread,
        references: [m.thread],
        headers: DMARC_PASS,
      });
      await box.waitSeen(uid);
    },
    sent: async () => box.sink.mails.map((m) => ({ thread: threadOfSent(m), text: m.text ?? "" })),
    failNext: (status) => box.sink.failNext(status === 429 ? 421 : 451),
    close: () => box.close(),
  };
}
