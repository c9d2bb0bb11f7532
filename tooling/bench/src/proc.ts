import { readFileSync } from "node:fs";

/** Resident and peak resident memory of a live process, in MiB (Linux /proc). */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: kb("VmRSS") / 1024, peakMiB: kb("VmHWM") / 1024 };
}

/** Load average of the machine (1 minute) and its CPU count, printed beside heavy rows. */
export function machineLoad(): string {
  const [one] = readFileSync("/proc/loadavg", "utf8").split(" ");
  const cpus = readFileSync("/proc/cpuinfo", "utf8").match(/^processor\s*:/gm)?.length ?? 0;
  return `load ${one} on ${cpus} CPUs`;
}

/**
 * CPU time a live process has used so far (user + system, all its threads), in seconds (Linux
 * /proc; clock ticks of 1/100 s). Per unit of work it survives a loaded machine far better than
 * throughput does: waiting for a CPU is not counted.
 */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces), from field 3: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
