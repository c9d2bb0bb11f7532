// Outbound mail through nodemailer. SMTP answers become GatewaySendError (session-core's
// sendFailure) so the session's outbox retries what can pass later (connection refused, 4xx),
// dead-letters what never will (a 5xx refusal of the message or its recipient) and stops the
// gateway when the login is refused (535, RFC 4954).
import { type PlatformRule, sendFailure } from "@agentsvc/adapter-kit";
import nodemailer from "nodemailer";
import { certificateHint } from "./tls.js";

export interface SmtpSettings {
  host: string;
  port: number;
  user: string;
  pass: string;
  ca?: string | Buffer;
}

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** A text/html alternative of `text` (multipart/alternative). */
  html?: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  /** MIME attachments (a reply's files). */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

export function smtpTransport(settings: SmtpSettings) {
  return nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    // 465: implicit TLS; 587, 25 and others: STARTTLS, required (credentials never go in clear).
    secure: settings.port === 465,
    requireTLS: settings.port !== 465,
    auth: settings.user ? { user: settings.user, pass: settings.pass } : undefined,
    ...(settings.ca ? { tls: { ca: settings.ca } } : {}),
    connectionTimeout: 30_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
}

/** SMTP reply codes (RFC 5321 section 4.2, RFC 4954 section 6), not HTTP statuses. */
export const smtpRule: PlatformRule = (facts) => {
  const code = typeof facts.code === "number" ? facts.code : undefined;
  // 535 authentication credentials invalid, 534 mechanism too weak, 530 authentication required.
  if (code === 535 || code === 534 || code === 530) return { kind: "credentials" };
  if (code !== undefined && code >= 400 && code < 500) return { kind: "retry" };
  if (code !== undefined && code >= 500) return { kind: "permanent" };
  return facts.network ? { kind: "retry" } : undefined;
};

export async function sendMail(
  transport: ReturnType<typeof smtpTransport>,
  passwordEnvVar: string,
  mail: OutgoingMail,
): Promise<void> {
  try {
    await transport.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html ? { html: mail.html } : {}),
      messageId: mail.messageId,
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
      ...(mail.references?.length ? { references: mail.references } : {}),
      ...(mail.attachments?.length ? { attachments: mail.attachments } : {}),
      // RFC 3834: other bots and vacation responders do not answer this mail.
      headers: { "Auto-Submitted": "auto-replied", "X-Auto-Response-Suppress": "All" },
    });
  } catch (err) {
    const e = err as { responseCode?: number; code?: string; message?: string };
    throw sendFailure(
      {
        ...(e.responseCode !== undefined ? { code: e.responseCode } : {}),
        // No SMTP answer at all: refused, reset, timed out, TLS failed.
        network: e.responseCode === undefined,
        detail: certificateHint(err) ?? e.message ?? String(err),
      },
      { platform: "email", call: "SMTP", envVar: passwordEnvVar, platformRule: smtpRule, cause: err },
    );
  }
}
