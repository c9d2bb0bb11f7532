// Outbound mail through nodemailer. SMTP answers become GatewaySendError so the session's outbox
// retries what can pass later (connection refused, 4xx, authentication) and dead-letters what
// never will (a 5xx refusal of the message or its recipient).
import { GatewaySendError } from "@agentsvc/session-core";
import nodemailer from "nodemailer";

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
  messageId: string;
  inReplyTo?: string;
  references?: string[];
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

export async function sendMail(
  transport: ReturnType<typeof smtpTransport>,
  mail: OutgoingMail,
): Promise<void> {
  try {
    await transport.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      messageId: mail.messageId,
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
      ...(mail.references?.length ? { references: mail.references } : {}),
      // RFC 3834: other bots and vacation responders do not answer this mail.
      headers: { "Auto-Submitted": "auto-replied", "X-Auto-Response-Suppress": "All" },
    });
  } catch (err) {
    const e = err as { responseCode?: number; command?: string; code?: string; message?: string };
    const code = e.responseCode;
    const permanent =
      code !== undefined &&
      code >= 500 &&
      e.command !== "AUTH PLAIN" &&
      e.command !== "AUTH LOGIN" &&
      e.code !== "EAUTH";
    throw new GatewaySendError(
      `SMTP ${code !== undefined ? `answered ${code}` : `failed (${e.code ?? "error"})`}: ${e.message ?? String(err)}`,
      { permanent, ...(code !== undefined ? { status: code } : {}), cause: err },
    );
  }
}
