// Stop means stop: when the last client following a run (`/stream`, `/invoke`) hangs up before
// its end, the run is cancelled (its provider request aborted) unless a client reconnects
// (`Last-Event-ID`) within the grace period. A run waiting for an approval is left alone: it costs nothing while
// it waits, and its decision may come from elsewhere (a gateway, the chat page).
import type { RunHandle, RunManagerApi } from "@agentsvc/agent-core";

/** Default grace period between a hang-up and the cancel, for a client that reconnects. */
export const DISCONNECT_GRACE_MS = 3000;

export interface DisconnectCancel {
  /** A client now follows `handle`; call the answer once when it leaves (`hungUp`: before the end). */
  follow(handle: RunHandle): (hungUp: boolean) => void;
  /** How many runs it keeps now (followed, or waiting out their grace period): none once they are left. */
  readonly size: number;
}

export function disconnectCancel(runs: RunManagerApi, graceMs: number): DisconnectCancel {
  // Per run: how many streams follow it, and the cancel waiting out its grace period.
  const followed = new Map<string, { streams: number; timer?: ReturnType<typeof setTimeout> }>();
  return {
    get size() {
      return followed.size;
    },
    follow(handle) {
      const key = handle.threadId;
      const watched = followed.get(key) ?? { streams: 0 };
      followed.set(key, watched);
      watched.streams += 1;
      clearTimeout(watched.timer);
      watched.timer = undefined;
      return (hungUp) => {
        watched.streams -= 1;
        if (watched.streams > 0) return;
        // The entry is still this one: a follow meanwhile would have reused it (and a stream still open kept it).
        if (!hungUp || handle.status !== "running") {
          followed.delete(key);
          return;
        }
        watched.timer = setTimeout(() => {
          followed.delete(key);
          // Suspended meanwhile (waiting for an approval) or already ended: nothing to stop.
          if (handle.status !== "running") return;
          runs.cancel(key, { userId: handle.options.userId }, "the client hung up");
        }, graceMs);
        watched.timer.unref?.();
      };
    },
  };
}
