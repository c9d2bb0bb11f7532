// What the session shows of the threads this instance holds: one thread's state, and the queue
// depth per gateway (a metric).
import type { ThreadSnapshot } from "./session-options.js";
import type { Threads } from "./threads.js";

/** Messages waiting behind a running turn, per gateway. */
export function queueDepthsOf(threads: Threads): Record<string, number> {
  const depths: Record<string, number> = {};
  for (const state of threads.all())
    depths[state.gateway] = (depths[state.gateway] ?? 0) + state.queue.length;
  return depths;
}

export function snapshotOf(threads: Threads, gateway: string, thread: string): ThreadSnapshot {
  const state = threads.peek(gateway, thread);
  if (!state) return { running: false, queued: 0, steered: 0 };
  return {
    running: state.active !== undefined,
    ...(state.active ? { phase: state.active.phase } : {}),
    queued: state.queue.length,
    steered: state.active?.steered.length ?? 0,
    ...(state.pendingRequestId ? { pendingRequestId: state.pendingRequestId } : {}),
  };
}
