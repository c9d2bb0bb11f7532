// How several instances of one project share the work when they share one database. The session
// asks this for a thread before it runs anything on it, tells the others when it recorded a
// message for a thread it does not hold, and sends the outbox only while it leads. The database
// rows stay the truth: a lost notification is found by the periodic sweep.
//
// One instance (the default, `localCoordination`): every thread is this instance's, nothing is
// published, and this instance leads.

import type { AttachmentRef } from "@agentsvc/adapter-kit";
import type { RunOrigin } from "@agentsvc/agent-core";

/** What instances tell each other. */
export type ClusterMessage =
  /**
   * Something for `thread` was recorded in the inbox (or decided): its holder should look. `held`:
   * the recorder found the thread's lock held by another instance, so instances not holding it
   * ignore the message (without it, every instance tries to take the thread). `id`: the inbox record
   * announced; an instance that took it already need not look.
   */
  | {
      kind: "thread";
      gateway: string;
      thread: string;
      held?: boolean;
      id?: number;
      /**
       * The record `id` itself, and `prior`: the thread's queued records older than it when it was
       * recorded (sent by the statement recording it, RecordAnnounce). A holder that took every one
       * of `prior` takes it without reading the thread's queued records.
       */
      record?: { text: string; origin: RunOrigin; attachments?: AttachmentRef[] | null };
      prior?: number[];
    }
  /** Pieces were queued in the outbox: the sending instance should look. */
  | { kind: "outbox" }
  /**
   * The leader has an outbox backlog: other instances queue for the partitions it gives up
   * (outbox-shares.ts). `helping`: a helper's answer (the leader gives partitions up only once one came).
   */
  | { kind: "outbox-help"; helping?: boolean }
  /** A run control for whichever instance runs `threadId`; `id` is answered by a `run-ack`. */
  | {
      kind: "run";
      action: "cancel" | "steer" | "release";
      id: string;
      threadId: string;
      userId: string;
      text?: string;
      reason?: string;
    }
  /** The instance running the thread applied the control `id`. */
  | { kind: "run-ack"; id: string };

export interface Coordination {
  /** False for one instance: no locks, no messages, no sweep. */
  readonly shared: boolean;
  /**
   * Takes the thread for this instance (or confirms it holds it). False while another instance
   * holds it. A holder that dies loses every thread at once (the database releases its locks).
   */
  acquireThread(key: string): Promise<boolean>;
  /**
   * `acquireThread`, and when another instance holds the thread, `message` announced with the same
   * request (PostgreSQL: the NOTIFY in the statement of the failed take, one round trip instead of
   * two). `announced`: held elsewhere and `message` sent; `not-acquired`: nothing sent (the caller
   * publishes it). Optional: without it, `acquireThread` then `publish`.
   */
  acquireOrAnnounce?(
    key: string,
    message: ClusterMessage,
  ): Promise<"acquired" | "announced" | "not-acquired">;
  /**
   * The announcement of a message being recorded for thread `key`, folded into the statement that
   * records it (PostgreSQL: a NOTIFY in the inbox INSERT, sent when a session holds the thread's
   * lock: another instance's, or this one's own if its take was answered meanwhile, which its own
   * link hears): what that statement needs, `message` without its record `id` (the statement adds
   * it). Undefined when it cannot (the link is down, the payload too large). The recorder of a
   * message so announced asks for no lock. Optional.
   */
  recordAnnounce?(key: string, message: ClusterMessage): RecordAnnounce | undefined;
  releaseThread(key: string): Promise<void>;
  publish(message: ClusterMessage): Promise<void>;
  /**
   * Returns an unsubscribe. Messages from this instance may arrive too. `wantsHeld(key)`: whether
   * this instance looks at a `thread` announcement marked `held` for thread `key`; one it does not
   * may be dropped before it is read (PostgreSQL: before its JSON is parsed: with several instances
   * most announcements are of threads another instance holds). The handler still gets some it does
   * not want, and decides.
   */
  subscribe(
    handler: (message: ClusterMessage) => void,
    options?: { wantsHeld?(key: string): boolean },
  ): () => void;
  /**
   * Leads `role` whenever this instance can: `onLead` runs once leadership is taken (again after a
   * loss), `onLose` when it is lost (the holder's connection dropped). Returns a stop function that
   * gives the role up. `tryAfterMs`: the first try of a free role comes that long after this call
   * (a role another instance gives up meanwhile is taken at once); the default tries at once.
   */
  lead(
    role: string,
    handlers: { onLead(): Promise<void> | void; onLose(): Promise<void> | void },
    options?: { tryAfterMs?: number },
  ): () => Promise<void>;
  /**
   * Whether some instance (this one included) holds the thread's lock now, asked of the database:
   * a hint that may change right after. Optional: the sweep asks it first, so a thread running
   * elsewhere costs it no reads and no lock attempt.
   */
  threadBusy?(key: string): Promise<boolean>;
  /** Called with every thread key held when the connection that held them dropped. */
  onThreadsLost(handler: (keys: string[]) => void): () => void;
  /**
   * Rejects unless this instance holds the thread's lock now, asked of the database rather than of
   * this process (which may not have noticed a dropped connection yet). The session calls it inside
   * the transaction that ends a turn, after that transaction has locked the turn's inbox record:
   * an instance taking the thread over reads that record only once the transaction is over, so a
   * turn commits either before the takeover or not at all. Without it, a holder that lost its lock
   * unnoticed may commit a turn another instance runs again.
   */
  fence?(key: string): Promise<void>;
  /**
   * The fence folded into the commit (PostgreSQL): the session holding the thread's lock and the
   * lock's key, for the statement ending a turn to check once it has locked the turn's inbox record
   * (one statement instead of a fence of its own). Throws when this instance does not count the
   * lock as held. Optional: without it, `fence` is asked. The check is sound only because this
   * instance gives a thread's lock back only when no turn of the thread is ending (see HeldLock).
   */
  heldLock?(key: string): HeldLock;
  /**
   * The lock of a role this instance leads (`lead(role)`) as a statement on another connection
   * checks it (see HeldLock); undefined when this instance does not count it as held. The outbox
   * sender's due read checks its `outbox:<i>` roles with it, so an instance whose link is gone
   * unnoticed reads nothing more to send (outbox-fence.ts). Optional: without it, no such check.
   */
  roleLock?(role: string): HeldLock | undefined;
}

/**
 * A NOTIFY the statement recording a message sends when a session holds the advisory lock
 * `lock.key`: on `channel`, `payload` (a JSON object) with the record's `"id"` added.
 */
export interface RecordAnnounce {
  lock: HeldLock;
  channel: string;
  payload: string;
}

/**
 * A session advisory lock: its bigint key (decimal), and the session holding it by its backend pid
 * and its incarnation (decimal: a lock the session holds from its start to its end, pg-cluster
 * incarnation.ts). A statement checks both in the lock manager (chat-store lock-fence.ts), which is
 * "that session holds the key" as long as this instance gives a thread's lock back only with no turn
 * of it ending (ownership.ts) and a role's only once its sender is restricted (outbox-shares.ts).
 */
export interface HeldLock {
  pid: number;
  key: string;
  incarnation: string;
}

/**
 * Publishes a message whose loss the receivers survive (pieces to send, help wanted: in the database
 * and found by the receiver's own timed look; a run control's answer: the asker times out). A failure
 * (the link is down and reconnecting) is logged, not thrown: a rejection left unhandled would end the
 * process.
 */
export function announce(
  coordination: Coordination,
  logger: { warn(obj: object, msg: string): void },
  message: ClusterMessage,
): void {
  coordination.publish(message).catch((err: unknown) => {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err), kind: message.kind },
      "could not publish to the other instances",
    );
  });
}

/** One instance: everything is local. */
export const localCoordination: Coordination = {
  shared: false,
  acquireThread: async () => true,
  releaseThread: async () => {},
  publish: async () => {},
  subscribe: () => () => {},
  lead: (_role, handlers) => {
    void handlers.onLead();
    return async () => {};
  },
  onThreadsLost: () => () => {},
};
