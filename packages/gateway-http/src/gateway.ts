// The `http` channel adapter. Pull-driven: inbound events arrive on the handler's routes; replies
// and approval requests are rows of the session's durable outbox, read with a signed GET (their
// `seq` survives restarts), and, when a `callbackUrl` is configured, POSTed there (api.ts).
import {
  type Gateway,
  type GatewayCapabilities,
  type GatewayContext,
  type InteractionRequest,
  readSecrets,
  type SendOptions,
  type SendResult,
  type WebhookRequest,
} from "@agentsvc/adapter-kit";
import { postCallback } from "./api.js";
import { interactionMessage, type OutboxMessage, toMessage } from "./messages.js";
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  targetOf,
  type VerifyResult,
  verifyRequest,
} from "./signature.js";

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

/** Default text limit of one reply piece. */
export const MESSAGE_LIMIT = 65_536;

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
    this.messageLimit = options.messageLimit ?? MESSAGE_LIMIT;
    this.#callbackTimeoutMs = options.callbackTimeoutMs ?? 10_000;
  }

  /** The session context once started (the handler uses it); undefined before start and after stop. */
  get context(): GatewayContext | undefined {
    return this.#context;
  }

  async start(context: GatewayContext): Promise<void> {
    this.#context = context;
    // Optional: without a secret the gateway starts and refuses every request (documented).
    const { secret } = readSecrets(
      context,
      { secret: this.secretEnvVar },
      { optional: ["secret"], ...(this.#env ? { env: this.#env } : {}) },
    );
    this.#secret = secret;
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

  /** Whether `req` carries this gateway's signature (v2, or the deprecated v1), checked before parsing. */
  verify(req: WebhookRequest, nowSeconds: number): VerifyResult {
    return verifyRequest({
      secret: this.#secret,
      timestamp: req.headers[TIMESTAMP_HEADER],
      signature: req.headers[SIGNATURE_HEADER],
      // `req.url` is the handler's: a Request's url, serialized.
      request: { method: req.method, target: targetOf(req.url), body: req.rawBody },
      nowSeconds,
    });
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
    await postCallback(
      { url, secret: this.#secret, secretEnvVar: this.secretEnvVar, timeoutMs: this.#callbackTimeoutMs },
      { gateway: this.name, ...message },
    );
  }
}

export function createHttpGateway(options: HttpGatewayOptions): HttpGateway {
  return new HttpGateway(options);
}
