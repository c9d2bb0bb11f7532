import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { percentile } from "./stats.ts";

/**
 * p50 ms of one 4 KiB write + fdatasync(2) in `dir`: what a durable answer waits for at least,
 * measured on the same disk in the same run as the rows that wait for it.
 */
export function fsyncLatencyMs(dir: string, samples = 200): number {
  const file = join(dir, "fsync-probe.bin");
  const fd = openSync(file, "w");
  const page = Buffer.alloc(4096, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const start = performance.now();
      writeSync(fd, page, 0, page.length, (i % 64) * page.length);
      fdatasyncSync(fd);
      times.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return percentile(times, 50);
}
