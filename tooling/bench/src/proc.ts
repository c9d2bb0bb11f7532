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
