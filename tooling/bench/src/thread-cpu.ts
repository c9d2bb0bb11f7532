import { readFileSync } from "node:fs";

/**
 * CPU time a live process's main thread has used so far (user + system), in seconds (Linux /proc,
 * the task whose id is the process's). Its other threads are V8's compiler and GC helpers and
 * libuv's pool: cpuSecondsOf(pid) minus this.
 */
export function mainThreadSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
