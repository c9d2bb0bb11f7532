// The IMAP side: one connection kept across polls (reopened when it drops), new mail read by
// UID from the last cursor, and a message marked \Seen only after the handler has recorded it.
import { ImapFlow, type MessageEnvelopeObject } from "imapflow";
import type { Logger } from "pino";
import { certificateHint } from "./tls.js";

export interface ImapSettings {
  host: string;
  port: number;
  user: string;
  pass: string;
  mailbox: string;
  /** Extra CA (a self-signed server certificate). */
  ca?: string | Buffer;
}

export interface Cursor {
  uidValidity: string;
  lastUid: number;
}

export type Handled = "recorded" | "ignored";

export class ImapLoginError extends Error {
  /** The server refused these credentials (not a temporary `[UNAVAILABLE]` of its authentication service). */
  readonly rejected: boolean;

  constructor(message: string, options: { cause?: unknown; rejected: boolean }) {
    super(message, { cause: options.cause });
    this.name = "ImapLoginError";
    this.rejected = options.rejected;
  }
}

export class ImapReader {
  #client: ImapFlow | undefined;
  readonly #settings: ImapSettings;
  readonly #logger: Logger;

  constructor(settings: ImapSettings, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger;
  }

  /**
   * Reads every message after `cursor` (on the first run, or after UIDVALIDITY changed: every
   * unseen message), oldest first. `handle` resolves once a message is recorded; only then is it
   * marked \Seen and the cursor moved. A throw stops this poll at that message.
   */
  async poll(
    cursor: Cursor | undefined,
    handle: (source: Buffer, uid: number) => Promise<Handled>,
    saveCursor: (cursor: Cursor) => Promise<void>,
  ): Promise<number> {
    const client = await this.#connect();
    const lock = await client.getMailboxLock(this.#settings.mailbox);
    try {
      // The mailbox stays selected between polls: NOOP makes the server report mail that arrived since.
      await client.noop();
      const box = client.mailbox;
      // Stryker disable next-line ConditionalExpression,StringLiteral,CallExpression: getMailboxLock opens the mailbox or throws, so box is set here (the check narrows the type)
      if (!box) throw new Error(`IMAP mailbox ${this.#settings.mailbox} could not be opened`);
      const uidValidity = String(box.uidValidity);
      let uids: number[];
      if (cursor && cursor.uidValidity === uidValidity) {
        // `n:*` always includes the newest message, even below n: filter.
        // Stryker disable next-line ObjectLiteral,ArithmeticOperator: the filter below keeps only UIDs above the cursor whatever range is searched (the range only spares the server)
        const after = { uid: `${cursor.lastUid + 1}:*` };
        uids = ((await client.search(after, { uid: true })) || []).filter((u) => u > cursor.lastUid);
      } else {
        if (cursor)
          this.#logger.warn(
            { mailbox: this.#settings.mailbox, was: cursor.uidValidity, now: uidValidity },
            "IMAP UIDVALIDITY changed: reading every unseen message again (duplicates are dropped by Message-ID)",
          );
        uids = (await client.search({ seen: false }, { uid: true })) || [];
      }
      uids.sort((a, b) => a - b);
      let count = 0;
      for (const uid of uids) {
        const message = (await client.fetchOne(String(uid), { source: true }, { uid: true })) || undefined;
        if (message?.source) {
          const outcome = await handle(message.source, uid);
          if (outcome === "recorded") await client.messageFlagsAdd(String(uid), ["\\Seen"], { uid: true });
          count += 1;
        }
        await saveCursor({ uidValidity, lastUid: uid });
      }
      if (uids.length === 0 && (!cursor || cursor.uidValidity !== uidValidity))
        await saveCursor({ uidValidity, lastUid: box.uidNext - 1 });
      return count;
    } finally {
      lock.release();
    }
  }

  /** Where a reply to a message still in the mailbox goes (Reply-To, else From) and its subject, by its Message-ID. */
  async lookup(messageId: string): Promise<{ from: string; subject: string } | undefined> {
    const client = await this.#connect();
    const lock = await client.getMailboxLock(this.#settings.mailbox);
    try {
      // As in poll: on the held connection, NOOP first so mail that arrived since the last command is searched too.
      await client.noop();
      const uids = (await client.search({ header: { "message-id": messageId } }, { uid: true })) || [];
      const uid = uids[0];
      if (uid === undefined) return undefined;
      const found = await client.fetchOne(String(uid), { envelope: true }, { uid: true });
      // Asked for, the envelope comes with every message found (false: expunged since the search).
      const envelope: Partial<MessageEnvelopeObject> = (found || undefined)?.envelope ?? {};
      // The IMAP envelope's reply-to is the Reply-To header, or From when there is none (RFC 3501 ENVELOPE).
      const from = envelope.replyTo?.[0]?.address ?? envelope.from?.[0]?.address;
      return from ? { from: from.toLowerCase(), subject: envelope.subject ?? "" } : undefined;
    } finally {
      lock.release();
    }
  }

  close(): void {
    const client = this.#client;
    this.#client = undefined;
    client?.close();
  }

  async #connect(): Promise<ImapFlow> {
    if (this.#client?.usable) return this.#client;
    // Stryker disable next-line CallExpression: a client replaced here is no longer usable (closed, or its socket failed): closing it again ends nothing
    this.close();
    const { host, port, user, pass, ca } = this.#settings;
    const client = new ImapFlow({
      host,
      port,
      // 993 and any other port: implicit TLS; 143: STARTTLS, required.
      secure: port !== 143,
      doSTARTTLS: port === 143 ? true : undefined,
      auth: { user, pass },
      logger: false,
      ...(ca ? { tls: { ca } } : {}),
      connectionTimeout: 30_000,
      greetingTimeout: 15_000,
    });
    // Without a listener an 'error' event would end the process.
    client.on("error", (err: Error) => this.#logger.warn({ err: err.message }, "IMAP connection error"));
    try {
      await client.connect();
    } catch (err) {
      // Stryker disable next-line CallExpression: imapflow's connect() closes its socket itself when it fails (a refused login leaves no connection: imap-connection-reuse); kept in case a version does not
      client.close();
      const e = err as {
        authenticationFailed?: boolean;
        serverResponseCode?: string;
        responseText?: string;
        code?: string;
        message?: string;
      };
      if (e.authenticationFailed) {
        // RFC 5530: AUTHENTICATIONFAILED (wrong credentials) vs UNAVAILABLE (try again later).
        const said = [e.serverResponseCode, e.responseText].filter(Boolean).join(": ");
        throw new ImapLoginError(
          `IMAP login failed for ${user} at ${host}:${port}${said ? ` (${said})` : ""}`,
          {
            cause: err,
            rejected: e.serverResponseCode !== "UNAVAILABLE",
          },
        );
      }
      const hint = certificateHint(err);
      throw new Error(
        `IMAP connection to ${host}:${port} failed: ${hint ?? e.code ?? e.message ?? String(err)}`,
        {
          cause: err,
        },
      );
    }
    this.#client = client;
    return client;
  }
}
