// The `mock` gateway (tests only): records what the session sends and lets a test inject messages and decisions.
import type { DecisionKind } from "@agentsvc/agent-core";
import { GatewaySendError } from "@agentsvc/adapter-kit";
import type {
  DecidedNotice,
  DraftIds,
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  ReplyStream,
  SendOptions,
  SendResult,
  StreamOptions,
} from "../gateway.js";

export interface MockSent {
  thread: string;
  text: string;
  meta?: Record<string, unknown>;
  /** The outbox piece's idempotency key. */
  key?: string;
  /** Set when the piece is an approval request sent as text. */
  requestId?: string;
}

/** One platform call of a streamed reply, numbered in the order the calls landed. */
export interface MockStreamCall {
  seq: number;
  kind: "update" | "finish";
  thread: string;
  draft: string;
  text: string;
}

export interface MockStreamOptions {
  /** Where the calls are recorded: pass one array to the mocks of several instances to order them all. */
  log?: MockStreamCall[];
  /**
   * Awaited by each preview update before it lands: keeps it in flight as a slow platform call would.
   * An update whose signal aborted meanwhile never lands, as a platform request aborted before it
   * reached the platform.
   */
  slowUpdate?: (text: string, signal?: AbortSignal) => Promise<void>;
}

export interface MockGatewayOptions {
  /** Registry key; default `mock`. */
  name?: string;
  /** Default `channel`; `push` registers under the type. */
  kind?: "push" | "channel";
  type?: string;
  capabilities?: Partial<GatewayCapabilities>;
  messageLimit?: number;
  /** Streams replies (`capabilities.streaming`, `stream` and `finishDraft`), recording each call. */
  stream?: MockStreamOptions;
}

export class MockGateway implements Gateway {
  readonly kind: "push" | "channel";
  readonly type: string;
  readonly name: string;
  readonly capabilities: GatewayCapabilities;
  readonly messageLimit: number;
  readonly sent: MockSent[] = [];
  readonly decisionRequests: InteractionRequest[] = [];
  readonly decided: DecidedNotice[] = [];
  /**
   * Failures the next sends answer with, in order (`429` carries a 1 s retry-after by default; `401`
   * is rejected credentials, naming `envVar`).
   */
  readonly failures: (
    | { status: 429; retryAfterMs?: number }
    | { status: 500 | 403 }
    | { status: 401; envVar?: string }
  )[] = [];
  /** Every send attempt, failed ones included. */
  attempts = 0;
  /** Streamed-reply calls (with the `stream` option). */
  readonly streamCalls: MockStreamCall[];
  stream?: (thread: string, options: StreamOptions) => ReplyStream | undefined;
  finishDraft?: (thread: string, draft: DraftIds, text: string, options: SendOptions) => Promise<SendResult>;
  #context: GatewayContext | undefined;
  #nextId = 1;
  #waiters: (() => void)[] = [];

  constructor(options: MockGatewayOptions = {}) {
    this.kind = options.kind ?? "channel";
    this.type = options.type ?? "mock";
    this.name = this.kind === "push" ? this.type : (options.name ?? "mock");
    this.capabilities = {
      threads: true,
      interactiveActions: true,
      ...(options.stream ? { streaming: true } : {}),
      ...options.capabilities,
    };
    this.messageLimit = options.messageLimit ?? 4096;
    this.streamCalls = options.stream?.log ?? [];
    if (options.stream) this.#streams(options.stream);
  }

  /** A draft is a platform message edited in place: the first update creates it, the finish ends it. */
  #streams(options: MockStreamOptions): void {
    const record = (call: Omit<MockStreamCall, "seq">) =>
      this.streamCalls.push({ seq: this.streamCalls.length + 1, ...call });
    this.stream = (thread, streamOptions) => {
      let draft = streamOptions.previous?.draft as string | undefined;
      return {
        update: async (text, signal) => {
          await options.slowUpdate?.(text, signal);
          signal?.throwIfAborted();
          const created = draft === undefined;
          draft ??= `mock-draft-${this.#nextId++}`;
          record({ kind: "update", thread, draft, text });
          return created ? { draft } : undefined;
        },
      };
    };
    this.finishDraft = async (thread, ids, text, sendOptions) => {
      record({ kind: "finish", thread, draft: String(ids.draft), text });
      return (await this.send(thread, text, sendOptions)) ?? {};
    };
  }

  get context(): GatewayContext {
    if (!this.#context) throw new Error(`mock gateway "${this.name}" is not started`);
    return this.#context;
  }

  get started(): boolean {
    return this.#context !== undefined;
  }

  async start(context: GatewayContext): Promise<void> {
    this.#context = context;
  }

  async stop(): Promise<void> {
    this.#context = undefined;
  }

  async send(thread: string, text: string, options?: SendOptions): Promise<SendResult | undefined> {
    this.attempts += 1;
    const failure = this.failures.shift();
    if (failure) {
      throw new GatewaySendError(`mock gateway: platform answered ${failure.status}`, {
        status: failure.status,
        ...(failure.status === 429 ? { retryAfterMs: failure.retryAfterMs ?? 1000 } : {}),
        permanent: failure.status === 403,
        ...(failure.status === 401 ? { credentials: true, envVar: failure.envVar ?? "MOCK_TOKEN" } : {}),
      });
    }
    if (text.length > this.messageLimit) {
      throw new Error(
        `mock gateway: piece of ${text.length} characters exceeds messageLimit ${this.messageLimit}`,
      );
    }
    const meta = options?.meta;
    this.sent.push({
      thread,
      text,
      ...(meta ? { meta } : {}),
      ...(options ? { key: options.idempotencyKey } : {}),
      ...(options?.requestId ? { requestId: options.requestId } : {}),
    });
    this.#wake();
    return { messageId: `mock-msg-${this.sent.length}` };
  }

  async requestDecision(request: InteractionRequest): Promise<SendResult | undefined> {
    this.decisionRequests.push(request);
    this.#wake();
    return { messageId: `mock-card-${this.decisionRequests.length}` };
  }

  async onDecided(notice: DecidedNotice): Promise<void> {
    this.decided.push(notice);
    this.#wake();
  }

  /** A user message arriving from the platform. `id` defaults to a fresh message id; `author` to `user-1`. */
  inject(message: { thread: string; text: string; id?: string; author?: string }): Promise<DeliverResult> {
    const dedupKey = message.id ?? `mock-${this.#nextId++}`;
    return this.context.deliver({
      dedupKey,
      thread: message.thread,
      text: message.text,
      author: { id: message.author ?? "user-1" },
    });
  }

  /** A user pressing a decision button. */
  decide(
    requestId: string,
    decision: DecisionKind | DecisionInput,
    decidedBy = "user-1",
  ): Promise<DecideResult> {
    const input = typeof decision === "string" ? { decision } : decision;
    return this.context.decide(requestId, input, decidedBy);
  }

  /** Messages sent to one thread, texts only. */
  textsTo(thread: string): string[] {
    return this.sent.filter((m) => m.thread === thread).map((m) => m.text);
  }

  /** Resolves once `predicate` holds (checked after every send/request), or rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`mock gateway "${this.name}": condition not met within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          resolve();
        } else this.#waiters.push(check);
      };
      this.#waiters.push(check);
    });
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

export function createMockGateway(options: MockGatewayOptions = {}): MockGateway {
  return new MockGateway(options);
}

/** The adapter factory a `type: mock` entry loads (`@agentsvc/session-core/mock`). */
export { createMockGateway as createGateway };
