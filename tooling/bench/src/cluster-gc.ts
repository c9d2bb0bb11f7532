// The instances' major collections in cluster-idle.ts's windows (#45.3). After a burst each process's
// heap has grown; once its allocation goes quiet, V8's memory reducer runs one major GC that gives the
// growth back (heap 60-65 -> 30-35 MiB, RSS -30-35 MiB, 50-290 ms pauses on a loaded machine),
// 13-96 s after the burst: in the first window, the gap, the second window, or the next burst. That
// one GC per process is most of an idle window's CPU, so where it lands sets a window's ratio.
// Loaded into each instance (NODE_OPTIONS --import, BENCH_GC_LOG set): every major GC is appended to
// that file with its wall-clock start; `reducer` is the flag V8's memory reducer collects with
// (all external memory), which a GC for want of space does not set.
import { appendFileSync, readFileSync } from "node:fs";
import { constants, PerformanceObserver } from "node:perf_hooks";

export interface MajorGc {
  pid: number;
  /** Start, ms epoch. */
  at: number;
  /** Main-thread pause, ms (V8's helper threads work beside it). */
  ms: number;
  reducer: boolean;
}

const LOG = process.env.BENCH_GC_LOG;
if (LOG) {
  const origin = performance.timeOrigin;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind, flags } = (entry as unknown as { detail: { kind: number; flags: number } }).detail;
      if (kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const gc: MajorGc = {
        pid: process.pid,
        at: Math.round(origin + entry.startTime),
        ms: entry.duration,
        reducer: (flags & constants.NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY) !== 0,
      };
      appendFileSync(LOG, `${JSON.stringify(gc)}\n`);
    }
  }).observe({ entryTypes: ["gc"] });
}

/** The environment that makes a child server log its major GCs to `file`. */
export function gcLogEnv(file: string): Record<string, string> {
  const preload = `--import=${import.meta.filename}`;
  return { BENCH_GC_LOG: file, NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(" ") };
}

/** The major GCs logged to `file` so far. */
export function majorGcs(file: string): MajorGc[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as MajorGc);
}

/** "2 major GCs (memory reducer 1), 120 ms" of those that started between `from` and `to` (ms epoch). */
export function gcsBetween(
  gcs: readonly MajorGc[],
  from: number,
  to: number,
): { line: string; reducers: number } {
  const inside = gcs.filter((g) => g.at >= from && g.at < to);
  const reducers = inside.filter((g) => g.reducer).length;
  const ms = inside.reduce((sum, g) => sum + g.ms, 0);
  return { line: `${inside.length} major GCs (memory reducer ${reducers}), ${Math.round(ms)} ms`, reducers };
}
