// The `mock` gateway (tests only): records what the session sends and lets a test inject messages and decisions.
import type { DecisionKind } from "@agentsvc/agent-core";
import type {
  DecideResult,
  DecisionInput,
  DeliverResult,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  OutboundMeta,
} from "../gateway.js";

export interface MockSent {
  thread: string;
  text: string;
  meta?: Record<string, unknown>;
}

export interface MockGatewayOptions {
  /** Registry key; default `mock`. */
  name?: string;
  /** Default `channel`; `push` registers under the type. */
  kind?: "push" | "channel";
  type?: string;
  capabilities?: Partial<GatewayCapabilities>;
  messageLimit?: number;
}

export class MockGateway implements Gateway {
  readonly kind: "push" | "channel";
  readonly type: string;
  readonly name: string;
  readonly capabilities: GatewayCapabilities;
  readonly messageLimit: number;
  readonly sent: MockSent[] = [];
  readonly decisionRequests: InteractionRequest[] = [];
  #context: GatewayContext | undefined;
  #nextId = 1;
  #waiters: (() => void)[] = [];

  constructor(options: MockGatewayOptions = {}) {
    this.kind = options.kind ?? "channel";
    this.type = options.type ?? "mock";
    this.name = this.kind === "push" ? this.type : (options.name ?? "mock");
    this.capabilities = { threads: true, interactiveActions: true, ...options.capabilities };
    this.messageLimit = options.messageLimit ?? 4096;
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

  async send(thread: string, text: string, options: OutboundMeta = {}): Promise<void> {
    if (text.length > this.messageLimit) {
      throw new Error(
        `mock gateway: piece of ${text.length} characters exceeds messageLimit ${this.messageLimit}`,
      );
    }
    this.sent.push({ thread, text, ...(options.meta ? { meta: options.meta } : {}) });
    this.#wake();
  }

  async requestDecision(request: InteractionRequest): Promise<void> {
    this.decisionRequests.push(request);
    // Without buttons the request goes out as a plain message, as a text-only platform would.
    if (!this.capabilities.interactiveActions) {
      this.sent.push({ thread: request.thread, text: request.prompt });
    }
    this.#wake();
  }

  /** A user message arriving from the platform. `id` defaults to a fresh message id. */
  inject(message: {
    thread: string;
    text: string;
    id?: string;
    userDisplay?: string;
  }): Promise<DeliverResult> {
    const dedupKey = message.id ?? `mock-${this.#nextId++}`;
    return this.context.deliver({
      gateway: this.name,
      dedupKey,
      thread: message.thread,
      text: message.text,
      ...(message.userDisplay ? { userDisplay: message.userDisplay } : {}),
    });
  }

  /** A user pressing a decision button. */
  decide(
    requestId: string,
    decision: DecisionKind | DecisionInput,
    decidedBy = `${this.name}:user`,
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
