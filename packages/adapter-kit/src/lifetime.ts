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
