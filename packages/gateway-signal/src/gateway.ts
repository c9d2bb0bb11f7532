// The Signal gateway: a client of a signal-cli daemon the operator runs (`signal-cli -a <number>
// daemon --http=127.0.0.1:8080 --receive-mode=on-connection`). Inbound is the daemon's events
// stream (connection.ts); outbound is JSON-RPC `send` (api.ts). signal-cli cannot replay an event,
// so a message is acknowledged (read receipt) only once recorded, and a record that fails is
// retried in place, with backoff, before the stream is read on.
import {
  type AttachmentRef,
  type BackoffOptions,
  backoffDelay,
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type GatewayFactory,
  type Inbound,
  type OutboundFile,
  readSecrets,
  type SendOptions,
  type SendResult,
  sleep,
} from "@agentsvc/adapter-kit";
import { parseDuration } from "@agentsvc/config-schema/adapter";
import { callRpc, checkSendResults } from "./api.js";
import { attachmentDataUri } from "./attachment-uri.js";
import { EventStream } from "./connection.js";
import { type MediaOptions, storeFile } from "./download.js";
import { classify } from "./inbound.js";
import { recipientOf } from "./thread.js";
import { SIGNAL_DEFAULT_HTTP_URL } from "./schema.js";

/** Signal shows longer texts as an attachment; 2000 keeps every reply inline. */
export const MESSAGE_LIMIT = 2000;
/** Retries of a failed record: 1 s doubling to 30 s, +20% jitter, until recorded or stopped. */
export const SIGNAL_RECORD_RETRY = { baseMs: 1_000, maxMs: 30_000, jitter: 0.2 };

export interface SignalGatewayOptions {
  /** Name of the environment variable holding the account number (E.164). */
  accountEnvVar: string;
  /** The daemon's HTTP address. Default http://127.0.0.1:8080. */
  httpUrl?: string;
  /** Environment handed by the server; wins over the session's where it has the variable. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Reconnect backoff; defaults to the spec's 2 s..60 s +20%. `random` makes the jitter testable. */
  reconnect?: BackoffOptions;
  /** Idle watchdog: how often it looks, and how long a silent stream may stay open. Default 30 s / 120 s. */
  watchdog?: { checkMs?: number; idleMs?: number };
  /** Backoff between tries of a record that failed. Default 1 s..30 s +20%. */
  recordRetry?: BackoffOptions;
  /** Clock for the watchdog (tests). */
  now?: () => number;
  /** The entry's `deafAfter` ("10m"): the stream open but no message for that long -> reopened, with a warning. */
  deafAfter?: string;
  /**
   * The entry's `media` block: the kinds and size of received files taken in. Absent: a file is
   * refused (`disabled`) without asking the daemon, and the session answers saying so.
   */
  media?: MediaOptions;
  fetch?: typeof fetch;
}

export class SignalGateway implements Gateway {
  readonly kind = "push";
  readonly type = "signal";
  readonly name = "signal";
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: false, typing: true };
  readonly messageLimit = MESSAGE_LIMIT;

  readonly #options: SignalGatewayOptions;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  #context: GatewayContext | undefined;
  #stream: EventStream | undefined;
  #account = "";
  #stopped = false;

  constructor(options: SignalGatewayOptions) {
    this.#options = options;
    this.#baseUrl = (options.httpUrl ?? SIGNAL_DEFAULT_HTTP_URL).replace(/\/+$/, "");
    this.#fetch = options.fetch ?? fetch;
  }

  /** True while an events stream is open. */
  get connected(): boolean {
    return this.#stream?.connected ?? false;
  }

  async start(context: GatewayContext): Promise<void> {
    const { account } = readSecrets(
      context,
      { account: this.#options.accountEnvVar },
      {
        gateway: "signal",
        describe: { account: "the bot's Signal number (E.164, e.g. +15551234567)" },
        ...(this.#options.env ? { env: this.#options.env } : {}),
      },
    );
    this.#context = context;
    this.#account = account;
    this.#stopped = false;
    this.#stream = new EventStream({
      baseUrl: this.#baseUrl,
      account,
      fetch: this.#fetch,
      ...(this.#options.reconnect ? { reconnect: this.#options.reconnect } : {}),
      ...(this.#options.watchdog ? { watchdog: this.#options.watchdog } : {}),
      ...(this.#options.now ? { now: this.#options.now } : {}),
      ...(this.#options.deafAfter ? { deafAfterMs: parseDuration(this.#options.deafAfter) } : {}),
    });
    this.#stream.start(context, (data, signal) => this.#receive(data, signal));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stream?.stop();
  }

  async send(thread: string, text: string, _options: SendOptions): Promise<SendResult> {
    return this.#send(thread, { message: text });
  }

  /**
   * One file of a reply as one Signal message: `send` with the file as a data URI in `attachments`
   * (signal-cli(1) send `--attachment`: a path or an RFC 2397 data URI with a `filename` parameter;
   * signal-cli-jsonrpc(5): a multi-value option is a JSON array), the caption as its text. The outbox
   * calls it once per file piece, retried like a text.
   */
  async sendFile(thread: string, file: OutboundFile, _options: SendOptions): Promise<SendResult> {
    const uri = attachmentDataUri(file.contentType, file.name, await file.bytes());
    return this.#send(thread, { message: file.caption ?? "", attachments: [uri] });
  }

  async #send(thread: string, params: Record<string, unknown>): Promise<SendResult> {
    const result = await this.#rpc("send", { recipient: recipientOf(thread), ...params });
    let timestamp: number | undefined;
    try {
      timestamp = checkSendResults(result);
    } catch (err) {
      this.#context?.logger.warn(
        { err: (err as Error).message, thread },
        "signal-cli send reached no recipient",
      );
      throw err;
    }
    return timestamp !== undefined ? { messageId: String(timestamp) } : {};
  }

  async startTyping(thread: string): Promise<void> {
    await this.#rpc("sendTyping", { recipient: recipientOf(thread) });
  }

  async #rpc(method: string, params: Record<string, unknown>): Promise<unknown> {
    try {
      return await callRpc(this.#baseUrl, method, { account: this.#account, ...params }, this.#options.fetch);
    } catch (err) {
      this.#context?.logger.error({ err, method }, `signal-cli ${method} failed`);
      throw err;
    }
  }

  async #receive(data: string, signal: AbortSignal): Promise<void> {
    const context = this.#context;
    if (!context) return;
    const found = classify(data, this.#account);
    if (found.kind === "ignored") {
      context.logger.debug({ reason: found.reason }, "signal event ignored");
      return;
    }
    // Files are stored (or refused) before the record, whose inbox entry keeps the refs.
    const attachments: AttachmentRef[] = [];
    for (const file of found.files ?? [])
      attachments.push(
        await storeFile(context, file, this.#options.media, (id) =>
          this.#rpc("getAttachment", { id, recipient: recipientOf(found.sender) }),
        ),
      );
    const inbound = attachments.length > 0 ? { ...found.inbound, attachments } : found.inbound;
    if (!(await this.#record(inbound, context, signal))) return;
    // The read receipt is the sender's acknowledgement, sent only once recorded; best effort.
    await this.#rpc("sendReceipt", {
      recipient: recipientOf(found.sender),
      targetTimestamp: [found.timestamp],
      type: "read",
    }).catch(() => undefined);
  }

  /** Records `inbound`, retrying in place until it is recorded; false only when stopped first. */
  async #record(inbound: Inbound, context: GatewayContext, signal: AbortSignal): Promise<boolean> {
    const retry = { ...SIGNAL_RECORD_RETRY, ...this.#options.recordRetry };
    for (let attempt = 1; ; attempt++) {
      try {
        await context.deliver(inbound);
        return true;
      } catch (err) {
        if (this.#stopped || signal.aborted) return false;
        const delayMs = backoffDelay(attempt, retry);
        context.logger.error(
          { err, thread: inbound.thread, attempt, delayMs },
          "recording an inbound message failed; retrying in place",
        );
        if (!(await sleep(delayMs, signal))) return false;
      }
    }
  }
}

export const createGateway: GatewayFactory<SignalGatewayOptions> = (options) => new SignalGateway(options);
