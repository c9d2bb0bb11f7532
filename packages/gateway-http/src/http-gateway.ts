// The `http` channel adapter. Pull-driven: inbound events arrive on the handler's routes; replies
// and approval requests are kept in a per-thread outbox read with a signed GET, and, when a
// `callbackUrl` is configured, also POSTed there signed with the same scheme.
import type {
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  OutboundMeta,
} from "@agentsvc/session-core";
import { signatureHeaders } from "./signature.js";

export interface HttpGatewayOptions {
  /** Entry name; routes are `/gateways/<name>/...` and decisions are recorded as `http:<name>`. */
  name: string;
  /** Environment variable holding the signing secret. Unset or empty: every request is rejected (401). */
  secretEnvVar: string;
  /** Optional: every outbox message is also POSTed here (signed). */
  callbackUrl?: string;
  /** Overrides the environment the session hands over (tests, embedding). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Messages kept per thread; older ones are dropped first. Default 1000. */
  outboxLimit?: number;
  /** Default 65 536 characters per reply piece. */
  messageLimit?: number;
  /** Callback timeout. Default 10 000 ms. */
  callbackTimeoutMs?: number;
}

export type OutboxMessage =
  | { seq: number; at: number; thread: string; kind: "reply"; text: string; meta?: Record<string, unknown> }
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
    };

type OutboxInput = OutboxMessage extends infer M
  ? M extends OutboxMessage
    ? Omit<M, "seq" | "at">
    : never
  : never;

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
  readonly #outbox = new Map<string, OutboxMessage[]>();
  readonly #outboxLimit: number;
  readonly #env: Readonly<Record<string, string | undefined>> | undefined;
  readonly #callbackTimeoutMs: number;
  #seq = 0;

  constructor(options: HttpGatewayOptions) {
    if (!/^[A-Za-z0-9_-]+$/.test(options.name)) {
      throw new TypeError(`http gateway: name: expected letters, digits, "_" or "-" (got "${options.name}")`);
    }
    this.name = options.name;
    this.secretEnvVar = options.secretEnvVar;
    this.callbackUrl = options.callbackUrl;
    this.#env = options.env;
    this.#outboxLimit = options.outboxLimit ?? 1000;
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

  async send(thread: string, text: string, options: OutboundMeta = {}): Promise<void> {
    this.#push({ thread, kind: "reply", text, ...(options.meta ? { meta: options.meta } : {}) });
  }

  async requestDecision(request: InteractionRequest): Promise<void> {
    this.#push({
      thread: request.thread,
      kind: "interaction",
      requestId: request.requestId,
      text: request.prompt,
      toolName: request.toolName,
      arguments: request.arguments,
      allowedDecisions: request.allowedDecisions,
    });
  }

  /** Outbox messages of a thread with seq > after, oldest first. */
  messages(thread: string, after = 0): OutboxMessage[] {
    return (this.#outbox.get(thread) ?? []).filter((m) => m.seq > after);
  }

  #push(input: OutboxInput): void {
    const message = { ...input, seq: ++this.#seq, at: Date.now() } as OutboxMessage;
    let list = this.#outbox.get(message.thread);
    if (!list) {
      list = [];
      this.#outbox.set(message.thread, list);
    }
    list.push(message);
    if (list.length > this.#outboxLimit) {
      const dropped = list.splice(0, list.length - this.#outboxLimit);
      this.#context?.logger.warn(
        { thread: message.thread, dropped: dropped.length },
        "outbox full; oldest messages dropped",
      );
    }
    if (this.callbackUrl) void this.#callback(message);
  }

  async #callback(message: OutboxMessage): Promise<void> {
    const url = this.callbackUrl;
    if (!url || this.#secret === "") return;
    const body = JSON.stringify({ gateway: this.name, ...message });
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...signatureHeaders(this.#secret, body) },
        body,
        signal: AbortSignal.timeout(this.#callbackTimeoutMs),
      });
      if (!res.ok)
        this.#context?.logger.warn({ url, status: res.status, seq: message.seq }, "callback refused");
    } catch (err) {
      // The message stays in the outbox; the client can still pull it.
      this.#context?.logger.warn({ url, err, seq: message.seq }, "callback failed");
    }
  }
}

export function createHttpGateway(options: HttpGatewayOptions): HttpGateway {
  return new HttpGateway(options);
}
