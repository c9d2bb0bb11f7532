// Sliding-window rate limits as platforms enforce them: at most `calls` per `perMs` for one key (a
// chat, a method); a call over the limit is refused with how long to wait, and until then every
// call of that key is refused too. A call that comes while the key is refused did not honour the
// platform's retry-after: the fakes list those so a test can say the adapter never does that.
export interface RateLimit {
  calls: number;
  perMs: number;
}

export interface Refusal {
  key: string;
  at: number;
  retryAfterMs: number;
  /** The key was already refused and its retry-after had not passed. */
  early: boolean;
}

export class RateWindow {
  readonly #calls = new Map<string, number[]>();
  readonly #refusedUntil = new Map<string, number>();
  /** Every refused call, in order. */
  readonly refusals: Refusal[] = [];

  /** Counts a call of `key` under every limit in `limits`; the refusal when one is exceeded. */
  take(key: string, limits: RateLimit[], now = Date.now()): Refusal | undefined {
    const until = this.#refusedUntil.get(key) ?? 0;
    if (now < until) return this.#refuse({ key, at: now, retryAfterMs: until - now, early: true });
    const recent = (this.#calls.get(key) ?? []).filter(
      (at) => now - at < Math.max(...limits.map((l) => l.perMs)),
    );
    for (const limit of limits) {
      const inWindow = recent.filter((at) => now - at < limit.perMs);
      if (inWindow.length < limit.calls) continue;
      // Free again when the oldest call of the window leaves it, in whole seconds (as both
      // Telegram's retry_after and Slack's Retry-After say it).
      const retryAfterMs = Math.ceil(((inWindow[0] as number) + limit.perMs - now) / 1000) * 1000;
      this.#refusedUntil.set(key, now + retryAfterMs);
      this.#calls.set(key, recent);
      return this.#refuse({ key, at: now, retryAfterMs, early: false });
    }
    recent.push(now);
    this.#calls.set(key, recent);
    return undefined;
  }

  #refuse(refusal: Refusal): Refusal {
    this.refusals.push(refusal);
    return refusal;
  }
}
