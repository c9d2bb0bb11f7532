// Statements on one connection, one after another. node-postgres queues a statement sent while
// another runs, but deprecates relying on that (removed in pg 9, with a warning at each process's
// first overlap); the link's users (lock batches, the bus, health checks) send independently.

export interface SerialQueue {
  /** Runs `task` after the previous one settled; a failed task does not stop the next. */
  <T>(task: () => Promise<T>): Promise<T>;
  /**
   * When the task running now was started (`performance.now()`), undefined between tasks: how
   * long the server has had the statement in flight, as opposed to how long a task waited.
   */
  readonly runningSince: number | undefined;
  /** When the last task settled (`performance.now()`): the server answered then. Undefined before the first. */
  readonly settledAt: number | undefined;
}

export function serialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  let since: number | undefined;
  let settled: number | undefined;
  const done = () => {
    since = undefined;
    settled = performance.now();
  };
  const queue = <T>(task: () => Promise<T>): Promise<T> => {
    const start = () => {
      since = performance.now();
      return task();
    };
    const run = tail.then(start, start);
    tail = run.then(done, done);
    return run;
  };
  return Object.defineProperties(queue, {
    runningSince: { get: () => since },
    settledAt: { get: () => settled },
  }) as SerialQueue;
}
