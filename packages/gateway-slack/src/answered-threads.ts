// The channel threads the bot has answered in, so a follow-up there needs no mention. Kept in the
// gateway's durable state (key `answeredThreads`), bounded: the least recently answered thread
// drops out first once LIMIT is reached.
import type { GatewayStateStore } from "@agentsvc/adapter-kit";
import type { Logger } from "pino";

const KEY = "answeredThreads";
export const ANSWERED_THREADS_LIMIT = 2_000;

export class AnsweredThreads {
  #ids = new Set<string>();
  #writes: Promise<void> = Promise.resolve();

  readonly #state: GatewayStateStore;
  readonly #logger: Logger;
  readonly #limit: number;

  constructor(state: GatewayStateStore, logger: Logger, limit = ANSWERED_THREADS_LIMIT) {
    this.#state = state;
    this.#logger = logger;
    this.#limit = limit;
  }

  async load(): Promise<void> {
    const stored = await this.#state.get<string[]>(KEY);
    this.#ids = new Set(Array.isArray(stored) ? stored.slice(-this.#limit) : []);
  }

  has(thread: string): boolean {
    return this.#ids.has(thread);
  }

  /** Marks `thread` answered (most recent); written only when it is new, so replies cost no write. */
  remember(thread: string): Promise<void> {
    const known = this.#ids.delete(thread);
    this.#ids.add(thread);
    if (known) return this.#writes;
    for (const old of this.#ids) {
      if (this.#ids.size <= this.#limit) break;
      this.#ids.delete(old);
    }
    const snapshot = [...this.#ids];
    this.#writes = this.#writes
      .then(() => this.#state.set(KEY, snapshot))
      .catch((err: unknown) =>
        this.#logger.warn(
          { err, thread },
          "could not store the answered thread; a follow-up there needs a mention",
        ),
      );
    return this.#writes;
  }
}
