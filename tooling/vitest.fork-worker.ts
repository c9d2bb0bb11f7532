// The worker every file of tooling/vitest.fork-pool.ts runs in: vitest's forks worker
// (dist/workers/forks.js), with its own channel to the main process (#45.6). Loaded by Node itself
// in the child (types stripped): nothing but Node's modules here.
// - A call's answer may take 10 minutes, not birpc's 60 s: while a file blocks its event loop (the
//   bin through spawnSync, up to 30 s a call, slower at load 55-72), the answer to a call made
//   before (onTaskUpdate as a test starts) waits unread, and the timer that expired meanwhile runs
//   before the poll phase that would read it. A test blocking 65 s (Atomics.wait) failed the run
//   with "[vitest-worker]: Timeout calling "onTaskUpdate"" in vitest's worker, not in this one. An
//   answer that never comes still fails the file, later.
// - A file's listener stays through the next file in a kept process: vitest's worker removes it as
//   the next file starts, so the answer to a call the file made as it ended (a throttled task
//   update, a late import) would be read by no one (from vitest 3.2.7's code; not seen).
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

/** The `worker` the pool names for every file. */
export const FORK_WORKER = import.meta.filename;

/** How long a call to the main process may wait for its answer. */
const CALL_TIMEOUT_MS = 600_000;

interface Ctx {
  /** vitest's own forks worker (dist/workers/forks.js), set by the pool. */
  forksWorker: string;
}
interface State {
  ctx: Ctx;
}
interface ForksWorker {
  runTests(state: State): Promise<void>;
  collectTests(state: State): Promise<void>;
}
type Listener = (message: unknown) => void;

// Kept before any test can replace them, as vitest's own worker does.
const send = process.send?.bind(process);
const on = process.on.bind(process);
const off = process.off.bind(process);
const listeners: Listener[] = [];

const forksOf = async (state: State) =>
  ((await import(pathToFileURL(state.ctx.forksWorker).href)) as { default: ForksWorker }).default;

export default {
  getRpcOptions() {
    // Called as each file starts: the listener of the file before stays, older ones go.
    for (const old of listeners.splice(0, Math.max(listeners.length - 1, 0))) off("message", old);
    return {
      serialize: v8.serialize,
      deserialize: (v: Uint8Array) => v8.deserialize(Buffer.from(v)),
      post: (v: unknown) => send?.(v),
      on: (fn: Listener) => {
        const listener: Listener = (message) => {
          // Tinypool's own messages are not the channel's.
          if ((message as { __tinypool_worker_message__?: boolean })?.__tinypool_worker_message__) return;
          fn(message);
        };
        on("message", listener);
        listeners.push(listener);
      },
      timeout: CALL_TIMEOUT_MS,
    };
  },
  runTests: async (state: State) => (await forksOf(state)).runTests(state),
  collectTests: async (state: State) => (await forksOf(state)).collectTests(state),
};
