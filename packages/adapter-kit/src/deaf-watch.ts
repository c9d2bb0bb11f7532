// `deafAfter` for socket connections (Slack Socket Mode, the Discord gateway, signal-cli's event
// stream): a connection the platform reports up (hello, heartbeat ACKs, keep-alives) that has
// delivered nothing for that long is reopened, with a warning. The adapter says what it heard and
// when its connection is up; the watch decides when it went deaf.
import type { Logger } from "pino";

export interface DeafWatchOptions {
  /** The entry's `deafAfter` in ms. */
  afterMs: number;
  logger: Logger;
  /** What the connection is, for the log (`Socket Mode`, `the Discord gateway`). */
  connection: string;
  /** Reopens the connection (the adapter's own reconnect). */
  reconnect(): void;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

export class DeafWatch {
  readonly #o: DeafWatchOptions;
  readonly #now: () => number;
  #lastHeard: number;

  constructor(options: DeafWatchOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#lastHeard = this.#now();
  }

  /** How often to `check`: often enough to act within a quarter of `afterMs`, at most every 30 s. */
  get checkEveryMs(): number {
    return Math.max(1, Math.min(30_000, Math.floor(this.#o.afterMs / 4)));
  }

  /** The platform sent an event (any, one the adapter ignores too), or a connection was (re)opened. */
  heard(): void {
    this.#lastHeard = this.#now();
  }

  /** Called on a timer: true when the connection was up yet silent too long, and was reopened. */
  check(connectionUp: boolean): boolean {
    if (!connectionUp) return false;
    const silentMs = this.#now() - this.#lastHeard;
    if (silentMs < this.#o.afterMs) return false;
    this.#o.logger.warn(
      { silentMs, deafAfterMs: this.#o.afterMs },
      `nothing arrived for ${Math.round(silentMs / 1000)} s while ${this.#o.connection} is up (deafAfter); reconnecting`,
    );
    this.#lastHeard = this.#now();
    this.#o.reconnect();
    return true;
  }
}
