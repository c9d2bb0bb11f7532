// CPU time of a live process in nanoseconds (Linux /proc/<pid>/task/*/schedstat: each thread's time
// on a CPU, user and system together), where /proc/<pid>/stat counts 10 ms clock ticks. An idle
// instance or backend uses a few ticks in a 30 s window, so a ratio of tick counts moves by whole
// ticks; schedstat resolves it. A thread that exited is no longer counted (Node's and PostgreSQL's
// threads live as long as the process).
import { readdirSync, readFileSync } from "node:fs";

/** Seconds on a CPU so far, summed over the process's threads; undefined once it has exited. */
export function cpuSecondsExact(pid: number): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return ns / 1e9;
}
