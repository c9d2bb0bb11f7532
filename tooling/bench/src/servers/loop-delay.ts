// Event-loop delay of a bench server (is the loop blocked, e.g. by fsync on the main thread?):
// with BENCH_LOOP_FILE set, SIGUSR2 starts a fresh histogram and SIGTERM writes its p50 / p99 /
// max in ms to that file before the server stops.
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

export function reportLoopDelay(): void {
  const file = process.env.BENCH_LOOP_FILE;
  if (!file) return;
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  process.on("SIGUSR2", () => histogram.reset());
  process.prependListener("SIGTERM", () => {
    const ms = (ns: number) => ns / 1e6;
    writeFileSync(
      file,
      JSON.stringify({
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
      }),
    );
  });
}
