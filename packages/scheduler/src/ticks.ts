// When a schedule is due. Cron patterns run on croner in the schedule's timezone (daylight saving as
// croner documents it: a fixed time that falls in the spring gap runs at the first minute after
// the gap; a fixed time that happens twice in autumn runs once; patterns with a wildcard or a step
// in the time fields skip the gap and run on both occurrences). `every` ticks are multiples of the
// interval since the Unix epoch, so every instance computes the same tick times.
import { Cron } from "croner";

export interface Timing {
  cron?: string;
  everyMs?: number;
  /** A one-off tick (epoch ms): a reminder set for one time. */
  at?: number;
  timezone: string;
}

export class TickClock {
  readonly #cron: Cron | undefined;
  readonly #everyMs: number | undefined;
  readonly #at: number | undefined;

  constructor(timing: Timing) {
    if (timing.at !== undefined) {
      this.#at = timing.at;
    } else if (timing.cron !== undefined) {
      this.#cron = new Cron(timing.cron, { paused: true, timezone: timing.timezone, mode: "5-or-6-parts" });
    } else if (timing.everyMs !== undefined && timing.everyMs > 0) {
      this.#everyMs = timing.everyMs;
    } else {
      throw new TypeError("a schedule needs cron, everyMs or at");
    }
  }

  /** The first tick strictly after `afterMs`, or undefined when the pattern never runs again. */
  next(afterMs: number): number | undefined {
    if (this.#at !== undefined) return this.#at > afterMs ? this.#at : undefined;
    if (this.#everyMs !== undefined) return (Math.floor(afterMs / this.#everyMs) + 1) * this.#everyMs;
    return this.#cron?.nextRun(new Date(afterMs))?.getTime();
  }

  /** Ticks in (afterMs, uptoMs], oldest first, at most `limit` of them (the newest are kept). */
  between(afterMs: number, uptoMs: number, limit = 1_000): number[] {
    const out: number[] = [];
    for (let t = this.next(afterMs); t !== undefined && t <= uptoMs; t = this.next(t)) {
      out.push(t);
      if (out.length > limit) out.shift();
    }
    return out;
  }
}

/** The newest tick in (afterMs, uptoMs], without walking every tick of a long downtime. */
export function latestTick(clock: TickClock, afterMs: number, uptoMs: number): number | undefined {
  // Step back from `uptoMs` in growing windows until a window holds a tick.
  for (let span = 60_000; ; span *= 4) {
    const from = Math.max(afterMs, uptoMs - span);
    const ticks = clock.between(from, uptoMs, 1);
    if (ticks.length) return ticks[ticks.length - 1];
    if (from === afterMs) return undefined;
  }
}
