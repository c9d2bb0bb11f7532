// The `http` channel adapter. Pull-driven: inbound events arrive on the handler's routes; replies
// and approval requests are rows of the session's durable outbox, read with a signed GET (their
// `seq` survives restarts), and, when a `callbackUrl` is configured, POSTed there signed with the
// same scheme — a failed callback is classified by session-core's `sendFailure`: retried by the
// outbox with backoff, or dead-lettered at once when the receiver refuses it for good (a 4xx).
import {
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type InteractionRequest,
  type OutboxEntry,
  type SendOptions,
  type SendResult,
  sendFailure,
} from "@agentsvc/session-core";
import { signatureHeaders } from "./signature.js";

export interface HttpGatewayOptions {
  /** Entry name; routes are `/gateways/<name>/...` and decisions are recorded as `http:<name>`. */
  name: string;
  /** Environment variable holding the signing secret. Unset or empty: every request is rejected (401). */
  secretEnvVar: string;
  /** Optional: every outbox message is also POSTed here (signed); 408/425/429/5xx are retried, other 4xx dead-lettered. */
  callbackUrl?: string;
  /** Overrides the environment the session hands over (tests, embedding). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default 65 536 characters per reply piece. */
  messageLimit?: number;
  /** Callback timeout. Default 10 000 ms. */
  callbackTimeoutMs?: number;
}

export type OutboxMessage =
  | {
      seq: number;
      at: number;
      thread: string;
      kind: "reply";
      text: string;
      idempotencyKey: string;
      meta?: Record<string, unknown>;
    }
  | {
      seq: number;
      at: number;
      thread: string;
      kind: "interaction";
      requestId: string;
      text: string;
      toolName: string;
      arguments: unknown;
      allowedDecisions: string[];
      idempotencyKey: string;
    };

export class HttpGateway implements Gateway {
  readonly kind = "channel" as const;
  readonly type = "http";
  readonly name: string;
  readonly capabilities: GatewayCapabilities = { threads: true, interactiveActions: true };
  readonly messageLimit: number;
  readonly secretEnvVar: string;
  readonly callbackUrl: string | undefined;
  #secret = "";
  #context: GatewayContext | undefined;
  readonly #env: Readonly<Record<string, string | undefined>> | undefined;
  readonly #callbackTimeoutMs: number;

  constructor(options: HttpGatewayOptions) {
    if (!/^[A-Za-z0-9_-]+$/.test(options.name)) {
      throw new TypeError(`http gateway: name: expected letters, digits, "_" or "-" (got "${options.name}")`);
    }
    this.name = options.name;
    this.secretEnvVar = options.secretEnvVar;
    this.callbackUrl = options.callbackUrl;
    this.#env = options.env;
    this.messageLimit = options.messageLimit ?? 65_536;
    this.#callbackTimeoutMs = options.callbackTimeoutMs ?? 10_000;
  }

  /** The session context once started (the handler uses it); undefined before start and after stop. */
  get context(): GatewayContext | undefined {
    return this.#context;
  }

  /** The signing secret read at start ("" when unset). */
  get secret(): string {
    return this.#secret;
  }

  async start(context: GatewayContext): Promise<void> {
    this.#context = context;
    this.#secret = (this.#env ?? context.env)[this.secretEnvVar] ?? "";
    if (this.#secret === "") {
      context.logger.warn(
        { gateway: this.name, secretEnvVar: this.secretEnvVar },
        `gateways/${this.name}: secretEnvVar: ${this.secretEnvVar} is unset or empty, so no signing is configured and every request to this gateway is rejected (401)`,
      );
    }
  }

  async stop(): Promise<void> {
    this.#context = undefined;
  }

  /** The reply is already readable through the outbox; a callback is the only delivery to make. */
  async send(thread: string, text: string, options: SendOptions): Promise<SendResult | undefined> {
    await this.#callback({
      kind: "reply",
      thread,
      text,
      idempotencyKey: options.idempotencyKey,
      ...(options.meta ? { meta: options.meta } : {}),
    });
    return undefined;
  }

  async requestDecision(request: InteractionRequest, options: SendOptions): Promise<SendResult | undefined> {
    await this.#callback(interactionMessage(request, options.idempotencyKey));
    return undefined;
  }

  /** Outbox messages of a thread with seq > after, oldest first. */
  async messages(thread: string, after = 0): Promise<OutboxMessage[]> {
    const rows = (await this.#context?.outbox(thread, after)) ?? [];
    return rows.flatMap(toMessage);
  }

  async #callback(message: Record<string, unknown>): Promise<void> {
    const url = this.callbackUrl;
    if (!url || this.#secret === "") return;
    const body = JSON.stringify({ gateway: this.name, ...message });
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...signatureHeaders(this.#secret, body) },
        body,
        signal: AbortSignal.timeout(this.#callbackTimeoutMs),
      });
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw sendFailure(
        { network: true, detail },
        { platform: "http", call: `callback to ${url}`, cause: err },
      );
    }
    await res.body?.cancel();
    if (!res.ok) {
      // 408/425/429/5xx retried (Retry-After honoured), 401 names the secret, any other 4xx dead-lettered.
      throw sendFailure(
        { status: res.status, retryAfter: res.headers.get("retry-after") },
        { platform: "http", call: `callback to ${url}`, envVar: this.secretEnvVar },
      );
    }
  }
}

function interactionMessage(request: InteractionRequest, idempotencyKey: string) {
  return {
    kind: "interaction" as const,
    thread: request.thread,
    requestId: request.requestId,
    text: request.prompt,
    toolName: request.toolName,
    arguments: request.arguments,
    allowedDecisions: request.allowedDecisions,
    idempotencyKey,
  };
}

function toMessage(row: OutboxEntry): OutboxMessage[] {
  const base = { seq: row.seq, at: row.at };
  if (row.kind === "text") {
    const p = row.payload as { text: string; meta?: Record<string, unknown> };
    return [
      {
        ...base,
        thread: row.thread,
        kind: "reply",
        text: p.text,
        idempotencyKey: row.idempotencyKey,
        ...(p.meta ? { meta: p.meta } : {}),
      },
    ];
  }
  if (row.kind === "approval")
    return [{ ...base, ...interactionMessage(row.payload as InteractionRequest, row.idempotencyKey) }];
  return [];
}

export function createHttpGateway(options: HttpGatewayOptions): HttpGateway {
  return new HttpGateway(options);
}
