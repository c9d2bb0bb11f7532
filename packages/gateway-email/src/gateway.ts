// The email gateway: a scheduled IMAP poll for inbound mail, SMTP for replies. A conversation
// (thread) is the Message-ID of its first mail; replies carry `Re:` subjects, In-Reply-To and
// References so mail clients group them. Delivery guarantees come from the session: a mail is
// marked \Seen only once recorded, and replies wait in the durable outbox while SMTP is down.
import { createHash } from "node:crypto";
import {
  Backoff,
  fileNote,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  GatewaySendError,
  type InteractionView,
  matchDecisionText,
  type OutboundFile,
  readSecrets,
  type SendOptions,
  type SendResult,
} from "@agentsvc/adapter-kit";
import { simpleParser } from "mailparser";
import { type MediaOptions, storeParts } from "./attachments.js";
import { type Cursor, type Handled, ImapLoginError, ImapReader } from "./connection.js";
import { mailPieces, markdownToMail, toMailHtml } from "./format.js";
import { decisionText, ignoreReason, mailFacts } from "./inbound.js";
import { judgeSender, type SenderVerdict, serverAuthResults } from "./sender-auth.js";
import { type OutgoingMail, sendMail, smtpTransport } from "./api.js";
import { domainOf, keepReferences, replySubject, requestTag } from "./thread.js";
import { readCaFile } from "./tls.js";
import { EMAIL_DEFAULTS } from "./schema.js";

/** Longest text of one reply: mail has no hard limit; this keeps one answer a readable mail. */
export const MESSAGE_LIMIT = 100_000;

export interface EmailGatewayOptions {
  imapHostEnvVar: string;
  imapUsernameEnvVar: string;
  imapPasswordEnvVar: string;
  fromAddressEnvVar: string;
  /** Default 993 (implicit TLS); 143 uses STARTTLS. */
  imapPort?: number;
  /** Default 60. */
  pollIntervalSeconds?: number;
  /** Default: the IMAP host's value. */
  smtpHostEnvVar?: string;
  /** Default: the IMAP username's value. */
  smtpUsernameEnvVar?: string;
  /** Default: the IMAP password's value. */
  smtpPasswordEnvVar?: string;
  /** Default 465 (implicit TLS); any other port requires STARTTLS. */
  smtpPort?: number;
  /** Embedding and tests: the environment when the context has none, the mailbox, faster polls, an extra CA. */
  env?: Readonly<Record<string, string | undefined>>;
  mailbox?: string;
  pollIntervalMs?: number;
  /** Longest wait between failed polls. Default 15 minutes (never below the poll interval). */
  retryMaxMs?: number;
  tlsCa?: string | Buffer;
  /** PEM file of a private CA that signed the IMAP and SMTP server certificates (relative: to `appRoot`). */
  tlsCaFile?: string;
  /** The project folder a relative `tlsCaFile` is read from (the server passes it). Default the working directory. */
  appRoot?: string;
  /**
   * authserv-ids of the receiving mail servers whose Authentication-Results headers are believed
   * (`mx.google.com`, your own MX's host name). A reply is applied as a decision only when one of
   * them reports DMARC pass or an aligned DKIM pass for its From domain. Default none: no decision by mail.
   */
  trustedAuthservIds?: readonly string[];
  /**
   * The operator's word that the receiving server writes its Authentication-Results for every mail
   * right below its own `Received` line (whose `by` host is the authserv-id) and removes incoming
   * ones naming it, as Gmail and Postfix with OpenDKIM/OpenDMARC place theirs. Then the topmost
   * trusted header right below that line counts too. Default false: only trusted headers above the
   * first `Received` count.
   */
  authResultsBelowReceived?: boolean;
  /**
   * The entry's direct-message policy (agentsvc passes the whole entry). Under `allowlist` or
   * `pairing` a sender is admitted by its From address, which anyone can type: a mail is taken only
   * when one of `trustedAuthservIds` authenticated that address, as for a decision.
   */
  dmPolicy?: "open" | "allowlist" | "pairing" | "disabled";
  /**
   * The entry's `media` block: the kinds and size of MIME parts taken in. Absent: a part is refused
   * (`disabled`) and the session answers saying so.
   */
  media?: MediaOptions;
}

interface ThreadInfo {
  to: string;
  subject: string;
  inReplyTo?: string;
  references?: string[];
}

const CURSOR = "cursor";

export class EmailGateway implements Gateway {
  readonly kind = "push";
  readonly type = "email";
  readonly name = "email";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: false };
  readonly messageLimit = MESSAGE_LIMIT;

  readonly #options: EmailGatewayOptions;
  readonly #pollMs: number;
  readonly #backoff: Backoff;
  #ctx: GatewayContext | undefined;
  #reader: ImapReader | undefined;
  #transport: ReturnType<typeof smtpTransport> | undefined;
  // Stryker disable next-line StringLiteral: start sets it before anything reads it
  #from = "";
  #failing = false;
  // Stryker disable next-line BooleanLiteral: start sets it (false) before the poll task that reads it is scheduled
  #stopped = false;

  constructor(options: EmailGatewayOptions) {
    this.#options = options;
    this.#pollMs =
      options.pollIntervalMs ?? (options.pollIntervalSeconds ?? EMAIL_DEFAULTS.pollIntervalSeconds) * 1000;
    this.#backoff = new Backoff({
      baseMs: this.#pollMs,
      maxMs: Math.max(this.#pollMs, options.retryMaxMs ?? 15 * 60_000),
    });
  }

  async start(ctx: GatewayContext): Promise<void> {
    const o = this.#options;
    const secrets = readSecrets(
      ctx,
      {
        host: o.imapHostEnvVar,
        user: o.imapUsernameEnvVar,
        pass: o.imapPasswordEnvVar,
        from: o.fromAddressEnvVar,
        smtpHost: o.smtpHostEnvVar,
        smtpUser: o.smtpUsernameEnvVar,
        smtpPass: o.smtpPasswordEnvVar,
      },
      {
        ...(o.env ? { env: o.env } : {}),
        gateway: "email",
        // Unset SMTP variables fall back to the IMAP values (one account for both).
        optional: ["smtpHost", "smtpUser", "smtpPass"],
        describe: {
          host: "the IMAP server's host name",
          user: "the IMAP login (usually the full address)",
          pass: "the IMAP password (an app password where the provider requires one)",
          from: "the address replies come from",
        },
      },
    );
    const { host, user, pass } = secrets;
    this.#ctx = ctx;
    this.#stopped = false;
    this.#from = secrets.from;
    const ca = o.tlsCa ?? (o.tlsCaFile ? readCaFile(o.tlsCaFile, o.appRoot) : undefined);
    this.#reader = new ImapReader(
      {
        host,
        port: o.imapPort ?? EMAIL_DEFAULTS.imapPort,
        user,
        pass,
        mailbox: o.mailbox ?? EMAIL_DEFAULTS.mailbox,
        ...(ca ? { ca } : {}),
      },
      ctx.logger,
    );
    this.#transport = smtpTransport({
      host: secrets.smtpHost || host,
      port: o.smtpPort ?? EMAIL_DEFAULTS.smtpPort,
      user: secrets.smtpUser || user,
      pass: secrets.smtpPass || pass,
      ...(ca ? { ca } : {}),
    });
    if (!o.trustedAuthservIds?.length)
      ctx.logger.warn(
        "trustedAuthservIds is not set: replies to approval mails are not applied as decisions (set it to the authserv-id your receiving mail server writes in Authentication-Results)",
      );
    if (this.#admitsByAddress() && !o.trustedAuthservIds?.length)
      ctx.logger.error(
        `dmPolicy ${o.dmPolicy} admits senders by their From address, which only trustedAuthservIds can vouch for: it is not set, so no mail is taken`,
      );
    ctx.scheduler.schedule("poll", 0, (signal) => this.#pollTask(signal));
  }

  /**
   * The reply's Markdown (no `format`: the session hands it over as written), cut on its tree only
   * past the limit; `send` renders each piece as text and HTML.
   */
  chunk(markdown: string): string[] {
    return mailPieces(markdown, MESSAGE_LIMIT);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#ctx?.scheduler.cancel("poll");
    this.#reader?.close();
    this.#transport?.close();
  }

  /** One Markdown piece as a text/plain body with a text/html alternative. */
  async send(thread: string, piece: string, options: SendOptions): Promise<SendResult> {
    return this.#mail(thread, { text: markdownToMail(piece), html: toMailHtml(piece) }, options);
  }

  /**
   * One file of a reply as a MIME attachment of a reply in the same conversation (threaded like a
   * text piece), the caption as the body. A retry carries the same Message-ID.
   */
  async sendFile(thread: string, file: OutboundFile, options: SendOptions): Promise<SendResult> {
    const content = await file.bytes();
    return this.#mail(thread, { text: file.caption ?? fileNote(file) }, options, [
      { filename: file.name, content, contentType: file.contentType },
    ]);
  }

  async #mail(
    thread: string,
    body: { text: string; html?: string },
    options: SendOptions,
    attachments?: OutgoingMail["attachments"],
  ): Promise<SendResult> {
    const ctx = this.#context();
    const transport = this.#transport;
    if (!transport) throw new Error("email gateway is not started");
    const requestId = await this.#requestOf(options.requestId);
    // A schedule composes a new mail (its own subject, no In-Reply-To or References) to the thread's
    // address; everything else answers in its conversation.
    const composed = composedSubject(options.meta);
    const info =
      composed !== undefined
        ? // Stryker disable next-line StringLiteral: a composed mail's subject is `composed`; this one is never read
          { to: (await this.#threadInfo(thread, undefined)).to, subject: "" }
        : await this.#threadInfo(thread, options.meta);
    const tag = requestId ? ` [agentsvc:${requestId}]` : "";
    const subject =
      composed ??
      (info.subject ? replySubject(info.subject) : requestId ? "Approval needed" : "Message from your agent");
    // Stable across retries of this piece, so a resend after a crash carries the same Message-ID.
    const digest = createHash("sha256")
      .update(`${thread}\0${options.idempotencyKey}`)
      .digest("hex")
      .slice(0, 32);
    const messageId = `<${digest}.agentsvc@${domainOf(this.#from)}>`;
    await sendMail(transport, this.#options.smtpPasswordEnvVar ?? this.#options.imapPasswordEnvVar, {
      from: this.#from,
      to: info.to,
      subject: `${subject}${tag}`,
      ...body,
      messageId,
      ...(info.inReplyTo ? { inReplyTo: info.inReplyTo } : {}),
      ...(info.references ? { references: info.references } : {}),
      ...(attachments ? { attachments } : {}),
    });
    await ctx.state.set(`msg:${messageId}`, thread);
    // The open request of this conversation: a reply without the subject tag may still decide it.
    if (requestId) await ctx.state.set(`request:${thread}`, requestId);
    return { messageId };
  }

  #context(): GatewayContext {
    // Stryker disable next-line ConditionalExpression: start sets #ctx before #transport, and #mail checks #transport with the same message; polls run only after start
    if (!this.#ctx) throw new Error("email gateway is not started");
    return this.#ctx;
  }

  async #pollTask(signal: AbortSignal): Promise<number | null> {
    const ctx = this.#context();
    const reader = this.#reader;
    if (this.#stopped || !reader) return null;
    const onAbort = () => reader.close();
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, and the listener is removed when the poll ends
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const cursor = await ctx.state.get<Cursor>(CURSOR);
      await reader.poll(
        cursor,
        (source, uid) => this.#handle(source, uid),
        (next) => ctx.state.set(CURSOR, next),
      );
      if (this.#failing) {
        ctx.logger.info("IMAP poll works again");
        ctx.reconnected?.();
      }
      this.#failing = false;
      this.#backoff.reset();
      ctx.platformCallSucceeded?.();
      return this.#pollMs;
    } catch (err) {
      if (this.#stopped) return null;
      reader.close();
      if (err instanceof ImapLoginError && err.rejected) {
        // Retrying a refused password only gets the account locked: the session stops this gateway.
        ctx.credentialsRejected(this.#options.imapPasswordEnvVar, err.message);
        return null;
      }
      this.#failing = true;
      const retryInMs = this.#backoff.next();
      const o = this.#options;
      const message =
        err instanceof ImapLoginError
          ? `${err.message}; check ${o.imapUsernameEnvVar} and ${o.imapPasswordEnvVar} (an app password where the provider requires one)`
          : `IMAP poll failed: ${err instanceof Error ? err.message : String(err)}`;
      ctx.logger.error({ retryInMs, attempt: this.#backoff.attempt }, message);
      return retryInMs;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async #handle(source: Buffer, uid: number): Promise<Handled> {
    const ctx = this.#context();
    ctx.heard?.();
    const mail = await simpleParser(source);
    const reason = ignoreReason(mail, this.#from);
    if (reason) {
      ctx.logger.info({ uid, reason, from: mail.from?.text }, "mail ignored");
      // Stryker disable next-line StringLiteral: the reader tells only "recorded" apart (marked seen)
      return "ignored";
    }
    const facts = mailFacts(mail);
    // The text is trimmed already (stripQuoted); a mail with parts goes on (the parts are its message).
    if (!facts.text && mail.attachments.length === 0) {
      ctx.logger.info({ uid, reason: "no text", from: facts.from }, "mail ignored");
      // Stryker disable next-line StringLiteral: the reader tells only "recorded" apart (marked seen)
      return "ignored";
    }
    const messageId =
      facts.messageId ??
      `<uid-${uid}-${createHash("sha256").update(source).digest("hex").slice(0, 16)}@imap>`;
    // Stryker disable next-line ArrayDeclaration: no id trusted by default; a placeholder id no receiving server writes trusts nothing either
    const trusted = this.#options.trustedAuthservIds ?? [];
    // Whether the receiving server vouches for the From address (a From is whatever the sender typed).
    let verdict: SenderVerdict | undefined;
    const vouched = () => {
      if (verdict) return verdict;
      const found = serverAuthResults(mail.headerLines, trusted, {
        belowReceived: this.#options.authResultsBelowReceived === true,
      });
      const v = judgeSender(found.own, domainOf(facts.from), trusted, found.all);
      // A refusal says where trusted headers were that did not count, so the fix can be found from the log.
      verdict = !v.ok && found.note ? { ok: false, reason: `${v.reason}; ${found.note}` } : v;
      return verdict;
    };
    const sender = this.#admitsByAddress() ? vouched() : undefined;
    if (sender && !sender.ok) {
      ctx.logger.warn(
        { uid, from: facts.from, reason: sender.reason },
        "mail not taken: the entry admits senders by address and the receiving server did not authenticate this one",
      );
      // Stryker disable next-line StringLiteral: the reader tells only "recorded" apart (marked seen)
      return "ignored";
    }
    const { thread, request } = await this.#threadOf(
      facts.subject,
      facts.inReplyTo,
      facts.references,
      messageId,
    );
    const text = request ? decisionText(facts.text, request.allowedDecisions) : facts.text;
    if (request && matchDecisionText(text, [...request.allowedDecisions])) {
      // A decision: only a sender the receiving server authenticated may make it (a From is easy to forge).
      const decider = vouched();
      if (!decider.ok) {
        ctx.logger.warn(
          { uid, from: facts.from, requestId: request.requestId, reason: decider.reason },
          "decision by mail not applied: the receiving server did not authenticate the sender",
        );
        // Stryker disable next-line StringLiteral: the reader tells only "recorded" apart (marked seen)
        return "ignored";
      }
    }
    const references = keepReferences([...facts.references, messageId]);
    // Parts are stored (or refused) before deliver, whose inbox record keeps the refs.
    const attachments = await storeParts(mail.attachments, this.#options.media, ctx.blobs);
    await ctx.deliver({
      ...(attachments.length > 0 ? { attachments } : {}),
      dedupKey: messageId,
      thread,
      text,
      author: { id: facts.from, ...(facts.fromName ? { displayName: facts.fromName } : {}) },
      chat: { type: "direct", id: facts.from },
      meta: { from: facts.from, replyTo: facts.replyTo, subject: facts.subject, messageId, references },
    });
    await ctx.state.set(`msg:${messageId}`, thread);
    const info: ThreadInfo = { to: facts.replyTo, subject: facts.subject, inReplyTo: messageId, references };
    await ctx.state.set(`thread:${thread}`, info);
    return "recorded";
  }

  /** Whether the entry lets a sender in by its address (an allowlist, or senders approved by pairing). */
  #admitsByAddress(): boolean {
    return this.#options.dmPolicy === "allowlist" || this.#options.dmPolicy === "pairing";
  }

  /** The request tag wins; then any mail of the chain we already know; then the chain's root. */
  async #threadOf(
    subject: string,
    inReplyTo: string | undefined,
    references: string[],
    messageId: string,
  ): Promise<{ thread: string; request?: InteractionView }> {
    const ctx = this.#context();
    const tagged = requestTag(subject);
    // Stryker disable next-line ConditionalExpression: without a tag, interaction(undefined) finds no request and the chain decides
    if (tagged) {
      const view = await ctx.interaction(tagged);
      if (view && view.gateway === this.name)
        return { thread: view.thread, ...(view.status === "open" ? { request: view } : {}) };
    }
    let thread: string | undefined;
    for (const id of [inReplyTo, ...[...references].reverse()]) {
      // Stryker disable next-line ConditionalExpression: no mail is kept under msg:undefined, so a missing id finds nothing either
      if (!id) continue;
      thread = await ctx.state.get<string>(`msg:${id}`);
      if (thread) break;
    }
    if (!thread) return { thread: references[0] ?? inReplyTo ?? messageId };
    const pending = await ctx.state.get<string>(`request:${thread}`);
    const view = pending ? await ctx.interaction(pending) : undefined;
    return { thread, ...(view?.status === "open" ? { request: view } : {}) };
  }

  /** Where a reply goes: the run's origin, else what the gateway kept of the thread, else its root mail. */
  async #threadInfo(thread: string, meta: Record<string, unknown> | undefined): Promise<ThreadInfo> {
    if (meta && typeof meta.from === "string") {
      return {
        // Reply-To when the mail named one (RFC 5322 §3.6.2); runs recorded before it was kept: From.
        to: typeof meta.replyTo === "string" ? meta.replyTo : meta.from,
        subject: String(meta.subject ?? ""),
        // Stryker disable next-line ConditionalExpression: an undefined inReplyTo is left out of the mail as an absent one is
        ...(typeof meta.messageId === "string" ? { inReplyTo: meta.messageId } : {}),
        ...(Array.isArray(meta.references) ? { references: meta.references.map(String) } : {}),
      };
    }
    const kept = await this.#context().state.get<ThreadInfo>(`thread:${thread}`);
    if (kept) return kept;
    if (!thread.startsWith("<") && thread.includes("@")) return { to: thread, subject: "" };
    // Stryker disable next-line OptionalChaining: send reaches here only after start set the reader (#mail checks #transport first)
    const root = await this.#reader?.lookup(thread);
    if (root) return { to: root.from, subject: root.subject, inReplyTo: thread, references: [thread] };
    throw new GatewaySendError(`email: no recipient known for thread ${thread}`, { permanent: true });
  }

  /** The session names the request a text piece renders; it is checked to be one of ours. */
  async #requestOf(id: string | undefined): Promise<string | undefined> {
    // Stryker disable next-line ConditionalExpression: interaction(undefined) finds no request either
    if (!id) return undefined;
    return (await this.#context().interaction(id)) ? id : undefined;
  }
}

/** What the server calls with the validated entry (plus `name` and `env`). */
export const createGateway: GatewayFactory<EmailGatewayOptions> = (options) => new EmailGateway(options);

/** The subject of a new mail a schedule composes (`meta.scheduled.subject`), if this piece is one. */
function composedSubject(meta: Record<string, unknown> | undefined): string | undefined {
  const subject = (meta?.scheduled as { subject?: unknown } | undefined)?.subject;
  return typeof subject === "string" && subject.trim() !== "" ? subject.trim() : undefined;
}
