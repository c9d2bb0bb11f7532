// CPU time of a live process by thread name (Linux /proc/<pid>/task/*/comm and schedstat, in
// nanoseconds): Node's MainThread, V8's platform workers (V8Worker: parallel GC, concurrent
// marking, the optimizing compilers), libuv's pool (libuv-worker) and the rest. cluster-cost.ts
// prints what a burst spent in each, summed over the instances, to show what three processes on
// 2 CPUs add besides the main thread's work (#45.3).
import { readdirSync, readFileSync } from "node:fs";

/** Seconds on a CPU so far by thread name (threads of one name summed); empty once it has exited. */
export function threadSecondsByName(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      out.set(name, (out.get(name) ?? 0) + ns / 1e9);
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return out;
}

/** The same summed over several processes. */
export function threadSecondsOfAll(pids: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids)
    for (const [name, s] of threadSecondsByName(pid)) out.set(name, (out.get(name) ?? 0) + s);
  return out;
}

/** "MainThread 1.23, V8Worker 0.31, ..." per 1,000 requests between two readings, largest first. */
export function threadSplit(a: Map<string, number>, b: Map<string, number>, sent: number): string {
  return [...b]
    .map(([name, s]) => [name, ((s - (a.get(name) ?? 0)) / sent) * 1000] as const)
    .filter(([, v]) => v >= 0.005)
    .sort((x, y) => y[1] - x[1])
    .map(([name, v]) => `${name} ${v.toFixed(2)}`)
    .join(", ");
}
