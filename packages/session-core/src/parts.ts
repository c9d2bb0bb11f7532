// What the session's pieces (turns, approvals, recovery) share. One object, built by the session.
import type { RunManagerApi } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import type { HeldLock } from "./coordination.js";
import type { Gateway, GatewayEntryOptions } from "./gateway.js";
import type { OutboxSender } from "./outbox-sender.js";
import type { GatewayRegistry } from "./registry.js";
import type { SessionStore } from "./store.js";
import type { Previews } from "./streaming.js";
import type { ThreadState, Threads } from "./threads.js";

export interface SessionParts {
  runs: RunManagerApi;
  store: SessionStore;
  registry: GatewayRegistry;
  threads: Threads;
  sender: OutboxSender;
  /** Streamed previews of running replies. */
  previews: Previews;
  logger: Logger;
  loggerFor(gateway: Gateway): Logger;
  /** Entry options (approval destination, approvers) of a registered gateway. */
  entryOptions(gateway: string): GatewayEntryOptions;
  /** Keeps work in flight visible to `idle()`; errors are logged. */
  track(work: Promise<unknown>): void;
  /** True once `stop` began: no new turn starts (recorded messages wait for the next start). */
  stopping(): boolean;
  /**
   * The write ending a turn, fenced: `write` runs inside the transaction that ends the turn, given
   * the thread's lock for its statement to check (the fence folded into the commit) when the
   * coordination and the store can, else the fence is asked after it. Rejects (and marks the thread
   * lost) unless this instance still holds the thread. One instance: `write` alone. `fenceAfter`:
   * the fence is asked after `write`, which must then not commit on its own.
   */
  fenced(
    state: ThreadState,
    write: (lock: HeldLock | undefined, fenceAfter: boolean) => Promise<void>,
  ): Promise<void>;
  /** Forgets a thread this instance lost, once its turn has wound down. */
  forget(state: ThreadState): void;
  /**
   * True when this instance may run the thread now, taking and adopting it first when nobody holds
   * it; false while another instance holds it. Always true for one instance.
   */
  claim(gateway: string, thread: string): Promise<boolean>;
}
