// A gateway between start and stop: the context it was started with, and a signal its platform
// calls carry, so stop cancels what is in flight and a later start gets a fresh one.
import type { GatewayContext } from "./gateway.js";

export class GatewayLifetime {
  #abort = new AbortController();
  #context: GatewayContext | undefined;

  /** At start: the context, and a new signal (a stop before aborted the last one). */
  begin(context: GatewayContext): void {
    this.#abort = new AbortController();
    this.#context = context;
  }

  /** At stop: no context, and every call in flight aborted. */
  end(): void {
    this.#context = undefined;
    this.#abort.abort();
  }

  /** The context while started. */
  get context(): GatewayContext | undefined {
    return this.#context;
  }

  /** Aborts at stop. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}

/**
 * A gateway whose start is its own `open` (secrets, clients) and then its lifetime begun, and whose
 * stop ends it (every call in flight aborted): what the webhook gateways otherwise each write.
 */
export abstract class LifetimeGateway {
  protected readonly life = new GatewayLifetime();

  /** Reads secrets and builds clients; a throw fails the start and leaves the gateway stopped. */
  protected abstract open(context: GatewayContext): Promise<void> | void;

  async start(context: GatewayContext): Promise<void> {
    await this.open(context);
    this.life.begin(context);
  }

  async stop(): Promise<void> {
    this.life.end();
  }
}
