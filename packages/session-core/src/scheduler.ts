// One scheduler shared by every push-style gateway: named tasks, listed, stopped on shutdown.
// A task error is logged on the owning gateway's logger and never escapes into the process.
import type { Logger } from "pino";

import type { GatewayScheduler, IntervalTask, SelfSchedulingTask, TaskInfo } from "@agentsvc/adapter-kit";

export type { GatewayScheduler, IntervalTask, SelfSchedulingTask, TaskInfo };

interface Task {
  info: TaskInfo;
  timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires (ms, Date.now()). */
  dueAt: number;
  stopped: boolean;
  logger: Logger;
  /** Delay for the next run after a failure of a self-scheduling task. */
  retryMs: number;
  controller: AbortController;
  run: (signal: AbortSignal) => Promise<number | null>;
}

export class Scheduler {
  readonly #tasks = new Map<string, Task>();
  #stopped = false;

  constructor(private readonly logger: Logger) {}

  /** A view whose task names are `<gateway>:<name>` and whose errors go to `logger`. */
  forGateway(gateway: string, logger: Logger): GatewayScheduler {
    const full = (name: string) => `${gateway}:${name}`;
    return {
      every: (name, intervalMs, task, options) =>
        this.every(full(name), intervalMs, task, { ...options, logger }),
      schedule: (name, firstDelayMs, task) => this.schedule(full(name), firstDelayMs, task, { logger }),
      cancel: (name) => this.cancel(full(name)),
      list: () => this.list().filter((t) => t.name.startsWith(`${gateway}:`)),
    };
  }

  every(
    name: string,
    intervalMs: number,
    task: IntervalTask,
    options: { runNow?: boolean; logger?: Logger } = {},
  ): void {
    if (!(intervalMs > 0))
      throw new RangeError(`scheduler: task "${name}": intervalMs must be > 0 (got ${intervalMs})`);
    this.#add(
      name,
      "interval",
      options.runNow ? 0 : intervalMs,
      intervalMs,
      options.logger,
      async (signal) => {
        await task(signal);
        return intervalMs;
      },
    );
  }

  schedule(
    name: string,
    firstDelayMs: number,
    task: SelfSchedulingTask,
    options: { logger?: Logger; retryMs?: number } = {},
  ): void {
    this.#add(name, "self", firstDelayMs, options.retryMs ?? 5_000, options.logger, async (signal) =>
      task(signal),
    );
  }

  cancel(name: string): boolean {
    const task = this.#tasks.get(name);
    if (!task) return false;
    task.stopped = true;
    task.controller.abort(new Error(`task "${name}" cancelled`));
    if (task.timer) clearTimeout(task.timer);
    this.#tasks.delete(name);
    return true;
  }

  /** Cancels every task of one gateway (its view's tasks). */
  cancelGateway(gateway: string): void {
    for (const name of [...this.#tasks.keys()]) if (name.startsWith(`${gateway}:`)) this.cancel(name);
  }

  list(): TaskInfo[] {
    return [...this.#tasks.values()].map((t) => ({ ...t.info }));
  }

  /** Stops every task; no task starts afterwards. A run in progress finishes but is not rescheduled. */
  stopAll(): void {
    this.#stopped = true;
    for (const name of [...this.#tasks.keys()]) this.cancel(name);
  }

  #add(
    name: string,
    kind: TaskInfo["kind"],
    firstDelayMs: number,
    retryMs: number,
    logger: Logger | undefined,
    run: (signal: AbortSignal) => Promise<number | null>,
  ): void {
    if (this.#stopped) {
      (logger ?? this.logger).warn({ task: name }, "scheduler is stopped; task not registered");
      return;
    }
    this.cancel(name);
    const task: Task = {
      info: { name, kind, runs: 0, errors: 0, running: false },
      timer: undefined,
      dueAt: 0,
      stopped: false,
      logger: logger ?? this.logger,
      retryMs,
      controller: new AbortController(),
      run,
    };
    this.#tasks.set(name, task);
    this.#arm(task, firstDelayMs);
  }

  /**
   * Runs the task within `withinMs` when its next run is later (not while it runs: its result
   * times the next run). False when there is no such task or it was not moved.
   */
  hurry(name: string, withinMs: number): boolean {
    const task = this.#tasks.get(name);
    if (!task?.timer || task.dueAt <= Date.now() + withinMs) return false;
    clearTimeout(task.timer);
    this.#arm(task, withinMs);
    return true;
  }

  #arm(task: Task, delayMs: number): void {
    if (task.stopped) return;
    task.dueAt = Date.now() + Math.max(0, delayMs);
    task.timer = setTimeout(() => void this.#fire(task), Math.max(0, delayMs));
    // The scheduler alone never keeps the process alive; servers and sockets do.
    task.timer.unref();
  }

  async #fire(task: Task): Promise<void> {
    task.timer = undefined;
    task.info.runs += 1;
    task.info.running = true;
    let next: number | null;
    try {
      next = await task.run(task.controller.signal);
    } catch (err) {
      task.info.errors += 1;
      if (task.stopped) return;
      task.logger.error({ err, task: task.info.name }, `scheduled task "${task.info.name}" failed`);
      // An interval task keeps its interval; a self-scheduling one retries after `retryMs`.
      next = task.retryMs;
    } finally {
      task.info.running = false;
    }
    if (next === null) {
      if (this.#tasks.get(task.info.name) === task) this.#tasks.delete(task.info.name);
      return;
    }
    this.#arm(task, next);
  }
}
