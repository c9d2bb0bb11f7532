// The schedule series: finished ticks by outcome (delivered, dead, failed, silent) and how late a
// tick's message was recorded after its time. Labels stay bounded: the schedule files' names.
import type { SchedulerObserver } from "@agentsvc/scheduler";
import type { Registry } from "prom-client";

type PromClient = typeof import("prom-client");

export function scheduleMetrics(prom: PromClient, registry: Registry): SchedulerObserver {
  const runs = new prom.Counter({
    name: "agentsvc_schedule_runs_total",
    help: "Finished schedule ticks by schedule and outcome (delivered; dead: the reply was dead-lettered; failed: the turn failed or the gateway was not running; silent: no reply text)",
    labelNames: ["schedule", "outcome"] as const,
    registers: [registry],
  });
  const lateness = new prom.Histogram({
    name: "agentsvc_schedule_lateness_seconds",
    help: "Seconds between a schedule tick's time and its message being recorded in the inbox, by schedule",
    labelNames: ["schedule"] as const,
    buckets: [0.1, 0.5, 1, 2, 5, 15, 30, 60, 300, 3600],
    registers: [registry],
  });
  return {
    onOutcome: (schedule, outcome) => runs.inc({ schedule, outcome }),
    onLateness: (schedule, seconds) => lateness.observe({ schedule }, seconds),
  };
}
