// What the session-level benches (access, spend, schedules) share: a push gateway that only counts
// its sends, and the on-versus-off rows of alternating rounds.
import type { Gateway } from "@agentsvc/session-core";
import { fmt, type Row } from "./stats.ts";

export function countingSink(): Gateway & { sent: number } {
  let sent = 0;
  return {
    kind: "push",
    type: "bench",
    name: "bench",
    capabilities: { threads: true, interactiveActions: false },
    messageLimit: 4000,
    async start() {},
    async stop() {},
    async send() {
      sent++;
      return { messageId: `m${sent}` };
    },
    get sent() {
      return sent;
    },
  };
}

export interface Throughput {
  ingest: number;
  e2e: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** One row per metric: the median round with the feature on against the median with it off (>= 0.9). */
export function onOffRow(metric: string, k: keyof Throughput, on: Throughput[], off: Throughput[]): Row {
  const a = median(on.map((r) => r[k]));
  const b = median(off.map((r) => r[k]));
  return {
    metric,
    value: `${fmt(a, 0)} msg/s`,
    baseline: `${fmt(b, 0)} msg/s`,
    ratio: fmt(a / b),
    target: ">= 0.9",
  };
}
