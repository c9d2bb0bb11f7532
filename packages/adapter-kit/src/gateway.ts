// The Gateway contract v2: what every channel adapter and push-style gateway implements, and the
// context the session hands it at start. Nine platform adapters stand on it, so it stays small.
// Delivery guarantees live in the session (durable inbox, outbox, recovery), not in adapters.
import type { AttachmentRef, DecisionKind } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import type { OutboundFile, SessionBlobs } from "./media.js";
import type { GatewayScheduler } from "./scheduler.js";

/** What the platform can do. The session reads these flags to choose how it renders things. */
export interface GatewayCapabilities {
  /** Replies can target a thread. False (SMS): one conversation per sender, and a new approval request replaces the open one. */
  threads: boolean;
  /** Buttons/cards for approvals: the session calls `requestDecision`; without it the session sends `request.prompt` as text. */
  interactiveActions: boolean;
  /** A sent message can be edited later (`edit`). */
  editing?: boolean;
  /** Partial text can be streamed (native or post-then-edit): the session calls `stream` while a turn runs. */
  streaming?: boolean;
  /** A typing indicator exists: the session calls `startTyping` when a turn starts. */
  typing?: boolean;
}

/** Who wrote an inbound message, as the platform (never the message text) says. */
export interface Author {
  /** Stable platform user id; the only identity a decision is checked against. */
  id: string;
  displayName?: string;
  isBot?: boolean;
}

/** One inbound platform message, as the adapter hands it to the session. */
export interface Inbound {
  /** Platform message id or delivery id; the same key twice is one message. */
  dedupKey: string;
  /** Platform thread id; also the memory conversationId. */
  thread: string;
  text: string;
  author: Author;
  /**
   * Where it was written: a direct conversation with the bot, or a group/channel with its platform
   * id. Decides which sender access policy applies (`dmPolicy` or `groupPolicy`). Absent: direct.
   */
  chat?: { type: "direct" | "group"; id: string };
  /** Adapter routing data kept with the run's origin (chat id, message id to reply to, ...). JSON only. */
  meta?: Record<string, unknown>;
  /**
   * The message's attachments, already downloaded into the blob store (or refused, with why):
   * recorded with the inbox record in one write, before the platform is acknowledged.
   */
  attachments?: AttachmentRef[];
}

export type DeliverResult = { accepted: true; id: number } | { accepted: false; duplicate: true };

/** A decision as a gateway reports it. Who decided is passed separately, from the platform's identity. */
export interface DecisionInput {
  decision: DecisionKind;
  reason?: string;
  editedData?: unknown;
  /** Also cancel the run after rejecting (the cli `Q` choice). */
  cancelRun?: boolean;
}

export type DecideResult =
  | { ok: true; requestId: string; decision: DecisionKind }
  | {
      ok: false;
      /** `busy`: another instance is running the thread right now; try again shortly. */
      code: "not_found" | "already_decided" | "bad_decision" | "forbidden" | "busy";
      message: string;
    };

/** A request for a human decision, rendered by a gateway. */
export interface InteractionRequest {
  requestId: string;
  /** The run's threadId (RunManager). */
  threadId: string;
  /** Registry key of the gateway asked to render it. */
  gateway: string;
  /** Platform thread to render it on (the run's own thread, or the entry's `approvalDestination`). */
  thread: string;
  allowedDecisions: DecisionKind[];
  toolName: string;
  arguments: unknown;
  /** The request in words, with the allowed decisions listed; what a text-only platform sends. */
  prompt: string;
  createdAt: number;
  /** When the request is rejected as expired (ms epoch). */
  expiresAt?: number;
  /** Adapter routing data from the run's origin. */
  meta?: Record<string, unknown>;
}

export interface InteractionView extends InteractionRequest {
  status: "open" | "decided";
}

/** After a decision: lets an adapter update the card/buttons it rendered. */
export interface DecidedNotice {
  requestId: string;
  gateway: string;
  thread: string;
  decision: DecisionKind;
  /** Platform id of who decided (or `session:expired`, `session:interrupt`, ...). */
  decidedBy: string;
  reason?: string;
  /** What `requestDecision` returned for this request, when it returned a message id. */
  requestMessageId?: string;
  meta?: Record<string, unknown>;
}

/** Handed to every outbound call. */
export interface SendOptions {
  /** The origin meta of the run this piece belongs to. */
  meta?: Record<string, unknown>;
  /** Stable across retries of this piece: pass it to platforms that deduplicate on a key. */
  idempotencyKey: string;
  /** 1 for the first try. */
  attempt: number;
  /** Set when this piece is an approval request sent as text (platforms without buttons): its request id. */
  requestId?: string;
}

export interface SendResult {
  /** The platform message id, kept with the outbox row (used for `edit` and `onDecided`). */
  messageId?: string;
}

/**
 * Platform ids of a streamed preview (a Discord message id, a Telegram draft id, a Slack stream ts),
 * kept in the gateway's durable state until the final message replaces it. JSON only.
 */
export type DraftIds = Record<string, string | number | boolean>;

export interface StreamOptions {
  /** The origin meta of the run. */
  meta?: Record<string, unknown>;
  /** The preview a process that died mid-stream left for this same reply: take it up again. */
  previous?: DraftIds;
}

/**
 * One reply streaming into a thread (a preview; the final message is the outbox's). The session
 * calls `update` at most once per interval and never while the previous call is in flight.
 */
export interface ReplyStream {
  /**
   * Show `text`, the reply so far (formatted, at most one message). Returns the ids to keep durable
   * when they are new or changed (the first call that creates a platform message), else undefined.
   * `signal` aborts when the session stops waiting for the call (`streamUpdateTimeoutMs`): pass it
   * to the platform request, so an update given up on never lands after the final message.
   */
  update(text: string, signal?: AbortSignal): Promise<DraftIds | undefined>;
}

/** A webhook request exactly as received: the signature is checked over `rawBody` before any parsing. */
export interface WebhookRequest {
  method: "GET" | "POST";
  /** The exact bytes of the body (empty for GET). */
  rawBody: Uint8Array;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string>>;
  /** The URL the request arrived on at this server. */
  url: string;
  /** The URL the platform called: `publicBaseUrl` + path + query when configured, else `url`. */
  publicUrl: string;
  query: URLSearchParams;
}

export interface WebhookResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** An inbound route of a webhook gateway; the server mounts it at `/webhooks/<type>`. */
export interface WebhookRoute {
  method: "GET" | "POST";
  handle(request: WebhookRequest): Promise<WebhookResponse>;
}

/** Durable key-value state of one gateway (cursors, offsets, session ids). Values are JSON. */
export interface GatewayStateStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/** One outbox row as a pull-driven channel shows it. `seq` is durable and increases. */
export interface OutboxEntry {
  seq: number;
  at: number;
  thread: string;
  kind: "text" | "approval" | "decided" | "file";
  status: "pending" | "sent" | "dead";
  payload: unknown;
  idempotencyKey: string;
}

/** Handed to a gateway at start. Everything a gateway needs from the session goes through here. */
export interface GatewayContext {
  /** Stored files (absent when the store has none): download attachments into it before `deliver`. */
  readonly blobs?: SessionBlobs;
  /** Durable ingest: resolves once the message is recorded (or found a duplicate). Acknowledge the platform only after. */
  deliver(inbound: Inbound): Promise<DeliverResult>;
  /** Report a decision; `decidedBy` is the platform author id (never a display name). */
  decide(requestId: string, decision: DecisionInput, decidedBy: string): Promise<DecideResult>;
  /** Read an interaction request (open or decided); undefined when unknown. */
  interaction(requestId: string): Promise<InteractionView | undefined>;
  /** This gateway's own durable state. */
  state: GatewayStateStore;
  /** Outbox rows of one of this gateway's threads with seq > `after` (pull-driven channels). */
  outbox(thread: string, after?: number, limit?: number): Promise<OutboxEntry[]>;
  /**
   * A piece the platform accepted and reports undelivered afterwards (a failed delivery status):
   * the session marks that outbox piece dead with `detail`, so it is not counted as delivered.
   * `platformMessageId` is what `send` returned. False when no sent piece of `thread` has that id.
   * With `retryAfterMs` (a passing reason: a rate limit) the piece is sent again after that wait,
   * while the outbox's attempt bound allows; then it is dead.
   * Optional so hand-built test contexts need not provide it; the session's context always does.
   */
  undelivered?(
    thread: string,
    platformMessageId: string,
    detail: string,
    options?: { retryAfterMs?: number },
  ): Promise<boolean>;
  /** Records a single-use token (a signature, a delivery id) for `ttlMs`; a second claim gets the first value. */
  claimOnce(
    token: string,
    value: string,
    ttlMs: number,
  ): Promise<{ claimed: true } | { claimed: false; value: string }>;
  /**
   * The platform rejected this gateway's credentials (Telegram poll 401, Slack `invalid_auth`, Discord
   * close 4004, an IMAP login refused): the session logs one error naming `envVar`, stops this gateway
   * (its tasks aborted, `stop()` called) and shows it stopped with the reason; the rest keeps running.
   */
  credentialsRejected(envVar: string, detail: string): void;
  /**
   * A connection adapter re-established its platform connection after losing it (a resumed
   * WebSocket, a reopened stream, a poll loop working again); never for the first connect. The
   * session hands it to its observer (the server's reconnect counter). Optional so hand-built test
   * contexts need not provide it; the session's context always does.
   */
  reconnected?(): void;
  /**
   * The platform sent this gateway something: any event or update, one it ignores too. With
   * `platformCallSucceeded` it tells a connection that works from one that went silently deaf
   * (`status()`: the age of each). A recorded inbound message counts without it. Optional like
   * `reconnected`.
   */
  heard?(): void;
  /**
   * A call to the platform worked: a poll answered, a heartbeat acknowledged, a stream opened. A
   * sent reply counts without it. Optional like `reconnected`.
   */
  platformCallSucceeded?(): void;
  /** The service's public base URL (behind a proxy), when configured. */
  publicBaseUrl?: string;
  /** This gateway's own logger, named `gateway-<type>`. */
  logger: Logger;
  /** The shared scheduler, scoped to this gateway; each task gets an AbortSignal that `stop` aborts. */
  scheduler: GatewayScheduler;
  /** Environment values read at start-up (a missing variable reads as ""). */
  env: Readonly<Record<string, string | undefined>>;
}

export interface Gateway {
  /** `push` gateways register under their type; `channel` adapters under their entry name. */
  readonly kind: "push" | "channel";
  /** Type string (`telegram`, `http`, `mock`, ...). */
  readonly type: string;
  /** Registry key: the type for push-style gateways, the entry name for channel adapters. */
  readonly name: string;
  readonly capabilities: GatewayCapabilities;
  /** Largest text one outbound message may carry; the session chunks formatted replies to it. */
  readonly messageLimit: number;
  /** Inbound routes (webhook gateways); the server mounts them at `/webhooks/<type>`. */
  readonly webhooks?: readonly WebhookRoute[];
  start(context: GatewayContext): Promise<void>;
  /** Idempotent. After it resolves the gateway delivers nothing more and every task and connection is closed. */
  stop(): Promise<void>;
  /** Markdown -> the platform's markup. Applied before chunking, so escaping never pushes a piece over the limit. */
  format?(markdown: string): string;
  /**
   * Cuts the formatted text into pieces of at most `messageLimit` as the platform counts them.
   * Default `chunkText` (UTF-16 units of the formatted text). A gateway without `format` receives
   * the Markdown as written: the built-in ones cut it on its tree and render each piece on their
   * own (`@agentsvc/markdown`'s `…Pieces`), so no piece breaks markup.
   */
  chunk?(formatted: string): string[];
  /**
   * Send one piece (at most `messageLimit` characters). Throw `GatewaySendError` (build it with
   * `sendFailure`: `retryAfterMs` for a 429, `permanent` for a 4xx that will never succeed,
   * `credentials` for rejected credentials) or any error for a retry with backoff.
   */
  send(thread: string, text: string, options: SendOptions): Promise<SendResult | undefined>;
  /**
   * Upload one file of a reply natively (photo, document, attachment). Called again after a crash
   * or a failure like `send`; without it a file piece is sent as a text note naming the file.
   */
  sendFile?(thread: string, file: OutboundFile, options: SendOptions): Promise<SendResult | undefined>;
  /** Replace the text of a sent message (when `capabilities.editing`). */
  edit?(thread: string, messageId: string, text: string, options: SendOptions): Promise<void>;
  /**
   * Start streaming a reply into `thread` (when `capabilities.streaming`); undefined when this thread
   * cannot stream (a Teams channel). Requires `finishDraft`.
   */
  stream?(thread: string, options: StreamOptions): ReplyStream | undefined;
  /**
   * The outbox's send of a streamed reply's first piece: make the preview `draft` the final message
   * with `text` (edit it, stop the stream with it, or send it and let the draft go). Called again
   * after a crash or a failure, so a second call with the same draft must not add a message.
   */
  finishDraft?(
    thread: string,
    draft: DraftIds,
    text: string,
    options: SendOptions,
  ): Promise<SendResult | undefined>;
  /** Best effort; errors are logged and ignored. */
  startTyping?(thread: string, meta?: Record<string, unknown>): Promise<void>;
  /** Render an approval with buttons/cards. Required when `capabilities.interactiveActions`. */
  requestDecision?(request: InteractionRequest, options: SendOptions): Promise<SendResult | undefined>;
  /** After a decision: update or remove the buttons. Retried through the outbox like a send. */
  onDecided?(notice: DecidedNotice, options: SendOptions): Promise<void>;
}

/**
 * What an adapter package exports as `create<Type>Gateway`: the server calls it with the validated entry
 * (for example `TelegramEntry` from @agentsvc/config-schema: env var names and defaults), plus the registry
 * `name`, the start-up `env` and `appRoot`, the project folder a relative file key is read from (as
 * `agentsvc doctor` reads it).
 */
export type GatewayFactory<Entry extends object> = (
  options: Entry & { name: string; env?: Readonly<Record<string, string | undefined>>; appRoot?: string },
) => Gateway;
