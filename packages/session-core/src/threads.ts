// Per-thread state of the session and the lock that serialises every change to one thread.
import type { AttachmentRef } from "@agentsvc/adapter-kit";
import type { RunOrigin } from "@agentsvc/agent-core";
import type { TraceSpan } from "./trace.js";

export interface QueuedMessage {
  inboxId: number;
  text: string;
  origin: RunOrigin;
  /** The message's attachment refs (the turn's input names them). */
  attachments?: AttachmentRef[];
  /** The record is already `running`: a turn that never committed before a restart runs again. */
  running?: boolean;
}

export interface ActiveTurn {
  inboxId: number;
  phase: "running" | "suspended";
  origin: RunOrigin;
  /** Inbox ids of messages spliced into this turn by `steer`: marked done when the turn commits. */
  steered: number[];
  /** True once the turn's end (inbox done + reply queued) is committed. */
  committed: boolean;
  /**
   * Started by this process and never suspended since: no text was finalised before an approval
   * request, so the store holds no reply prefix for it and its commit does not look for one.
   */
  unsuspended?: boolean;
  /** The turn's span (tracing), ended when the run ends or suspends. */
  span?: TraceSpan;
  /** Its W3C traceparent, written with the reply's outbox rows. */
  traceparent?: string;
}

export interface ThreadState {
  gateway: string;
  thread: string;
  threadId: string;
  active?: ActiveTurn;
  queue: QueuedMessage[];
  /** Open interaction request on this thread, if any. */
  pendingRequestId?: string;
  /** Inbox ids this instance has taken on (queued, running, spliced or done): never taken twice. */
  taken: Set<number>;
  /**
   * The instance lost the thread's lock while a turn ran here (several instances): the turn winds
   * down without committing, then the state is forgotten; the holder runs the thread now.
   */
  lost?: boolean;
}

/** The RunManager threadId of a gateway thread; one per (gateway, platform thread). */
export function gatewayThreadId(gateway: string, thread: string): string {
  return `gw:${gateway}:${thread}`;
}

export class Threads {
  readonly #states = new Map<string, ThreadState>();
  readonly #locks = new Map<string, Promise<unknown>>();

  get(gateway: string, thread: string): ThreadState {
    const threadId = gatewayThreadId(gateway, thread);
    let state = this.#states.get(threadId);
    if (!state) {
      state = { gateway, thread, threadId, queue: [], taken: new Set() };
      this.#states.set(threadId, state);
    }
    return state;
  }

  /** Forgets a thread's state (another instance may take it now). */
  drop(gateway: string, thread: string): void {
    this.#states.delete(gatewayThreadId(gateway, thread));
  }

  peek(gateway: string, thread: string): ThreadState | undefined {
    return this.#states.get(gatewayThreadId(gateway, thread));
  }

  /** The state of a thread by its RunManager threadId, if this instance has one. */
  byId(threadId: string): ThreadState | undefined {
    return this.#states.get(threadId);
  }

  all(): IterableIterator<ThreadState> {
    return this.#states.values();
  }

  /** Lock work still queued or running, so `idle()` can wait for it. */
  pending(): Promise<unknown>[] {
    return [...this.#locks.values()];
  }

  /** Runs inside the lock after every change to a thread (the session lets idle threads go here). */
  afterEach: ((state: ThreadState) => Promise<void>) | undefined;

  /** Runs `fn` after every earlier change to the same thread has settled. */
  with<T>(gateway: string, thread: string, fn: (state: ThreadState) => Promise<T> | T): Promise<T> {
    const key = gatewayThreadId(gateway, thread);
    const prev = this.#locks.get(key) ?? Promise.resolve();
    const run = async () => {
      const state = this.get(gateway, thread);
      const result = await fn(state);
      // The state object may have been dropped meanwhile (let go): only a live one settles.
      if (this.afterEach && this.#states.get(key) === state) await this.afterEach(state);
      return result;
    };
    const next = prev.then(run, run);
    const settled = next.catch(() => undefined);
    this.#locks.set(key, settled);
    void settled.then(() => {
      if (this.#locks.get(key) === settled) this.#locks.delete(key);
    });
    return next;
  }
}
