// A pull platform and a gateway context for the poll loop's tests: items queued on the platform,
// every fetch counted, a clock the test advances by the delays the loop asks for (no real waiting).
import { pino } from "pino";
import type { PollLoop } from "../src/index.js";

export interface Item {
  id: number;
  text: string;
}

export interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export function loopRig() {
  const state = new Map<string, unknown>();
  const logs: LogRecord[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const rig = {
    clock: 0,
    /** Items the platform holds; a fetch returns those at or after the cursor. */
    items: [] as Item[],
    fetches: 0,
    reconnected: 0,
    rejected: [] as { envVar: string; detail: string }[],
    logs,
    state,
    ctx: {
      logger,
      state: {
        get: async <T>(key: string) => state.get(key) as T | undefined,
        set: async (key: string, value: unknown) => void state.set(key, value),
        delete: async (key: string) => void state.delete(key),
      },
      credentialsRejected: (envVar: string, detail: string) => void rig.rejected.push({ envVar, detail }),
      reconnected: () => {
        rig.reconnected += 1;
      },
    },
    now: () => rig.clock,
    fetchFrom(cursor: number | undefined): Item[] {
      rig.fetches += 1;
      return rig.items.filter((i) => i.id >= (cursor ?? 0));
    },
    /** Runs rounds until the virtual clock passes `ms` (or the loop stops); returns the delays asked for. */
    async runFor(loop: PollLoop<Item, number>, ms: number): Promise<(number | null)[]> {
      const signal = new AbortController().signal;
      const until = rig.clock + ms;
      const delays: (number | null)[] = [];
      while (rig.clock < until) {
        const delay = await loop.poll(signal);
        delays.push(delay);
        if (delay === null) break;
        // A long-poll that found nothing holds the request for its timeout (here 25 s).
        rig.clock += delay === 0 ? 25_000 : delay;
      }
      return delays;
    },
  };
  return rig;
}
