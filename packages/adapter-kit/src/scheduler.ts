// What a gateway sees of the shared scheduler (the engine's `Scheduler` implements it): named tasks,
// scoped to the gateway, stopped with it.

/**
 * Return the delay in ms until the next run, or `null` to stop the task. `signal` aborts when the
 * task is cancelled or the scheduler stops, so a long-poll or a socket read ends at once.
 */
export type SelfSchedulingTask = (signal: AbortSignal) => Promise<number | null> | number | null;
export type IntervalTask = (signal: AbortSignal) => Promise<void> | void;

export interface TaskInfo {
  name: string;
  kind: "interval" | "self";
  /** Runs started so far. */
  runs: number;
  /** Failed runs so far. */
  errors: number;
  running: boolean;
}

/** The view of the scheduler a gateway gets: names are scoped to the gateway. */
export interface GatewayScheduler {
  /** Runs `task` every `intervalMs` (the next run is timed from the end of the previous one). Same name replaces. */
  every(name: string, intervalMs: number, task: IntervalTask, options?: { runNow?: boolean }): void;
  /** Runs `task` after `firstDelayMs`; the task's return value is the next delay (`null` stops it). Same name replaces. */
  schedule(name: string, firstDelayMs: number, task: SelfSchedulingTask): void;
  cancel(name: string): boolean;
  list(): TaskInfo[];
}
