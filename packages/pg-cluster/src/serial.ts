// Statements on one connection, one after another. node-postgres queues a statement sent while
// another runs, but deprecates relying on that (removed in pg 9, with a warning at each process's
// first overlap); the link's users (lock batches, the bus, health checks) send independently.

/** Runs each task after the previous one settled; a failed task does not stop the next. */
export function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
