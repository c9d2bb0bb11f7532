// The durable tables the session needs. `ChatDb` from @agentsvc/chat-store satisfies this shape
// on SQLite and on PostgreSQL; it is declared here so the session depends on behaviour, not on a
// store package (an adapter's install never pulls a database driver). Every method is async;
// `transaction(fn)` makes the store calls awaited inside `fn` commit together (a turn's messages,
// its inbox record and its reply), whichever code makes them.
import type { Decision, DecisionKind, InboxRecord, RunOrigin, RunStore } from "@agentsvc/agent-core";
import type { AttachmentRef, SessionBlobs } from "@agentsvc/adapter-kit";
import type { HeldLock, RecordAnnounce } from "./coordination.js";
import type { RoleFence } from "./outbox-fence.js";
import type { OutboxShare } from "./outbox-partition.js";

export type { InboxRecord };

export type InboxDoneStatus = "done" | "rejected" | "failed";

export interface SessionInbox {
  /**
   * Atomic; unique on (gateway, dedupKey); a new record is `queued`. `announce` (several instances):
   * sent by the recording statement where the store can (PostgreSQL), answered `announced` when it
   * went to the thread's holder; a store that cannot ignores it.
   */
  accept(
    input: {
      gateway: string;
      dedupKey: string;
      thread: string;
      text: string;
      origin: RunOrigin;
      /** Kept with the record (JSON); a store without the column ignores it. */
      attachments?: AttachmentRef[];
    },
    options?: { announce?: RecordAnnounce | undefined },
  ): Promise<{ accepted: true; id: number; announced?: boolean } | { accepted: false; duplicate: true }>;
  markRunning(id: number): Promise<unknown>;
  markDone(id: number, status: InboxDoneStatus): Promise<unknown>;
  /**
   * `markDone`, and `reply` queued as `SessionOutbox.enqueue` does, in one statement where the
   * store can (optional: without it the session makes the two calls, in the same transaction).
   * `lock`: the statement fails whole, with an error whose `code` is `lock_not_held`, unless the
   * lock is still held once the record is locked (the turn's fence; PostgreSQL). `last`: nothing
   * more is written in the caller's transaction, so with nothing sent in it yet the statement may
   * commit on its own. `running`: the thread's next record, moved queued -> running with it (as
   * `markRunning`, in the same statement where the store can).
   */
  finish?(
    id: number,
    status: InboxDoneStatus,
    reply: readonly Parameters<SessionOutbox["enqueue"]>[0][number][],
    options?: { lock?: HeldLock; last?: boolean; running?: number },
  ): Promise<unknown>;
  /** Queued or running records, oldest first. */
  unfinished(): Promise<InboxRecord[]>;
  /** Queued records of one thread, oldest first. */
  queued(gateway: string, thread: string): Promise<InboxRecord[]>;
  /**
   * Queued or running records of one thread, oldest first, read under a lock on them: a
   * transaction that is finishing one of them (another instance's turn committing) ends first.
   */
  unfinishedOf(gateway: string, thread: string): Promise<InboxRecord[]>;
  /** Deletes finished records received before `before`; returns how many. */
  prune(before: number): Promise<number>;
}

export interface StoredInteraction {
  requestId: string;
  threadId: string;
  gateway: string;
  thread: string;
  allowedDecisions: DecisionKind[];
  prompt: string;
  createdAt: number;
  status: "open" | "resolved";
  expiresAt: number | null;
  participant: string | null;
}

export interface SessionInteractions {
  save(request: {
    requestId: string;
    threadId: string;
    gateway: string;
    thread: string;
    allowedDecisions: DecisionKind[];
    prompt: string;
    createdAt: number;
    expiresAt?: number | null;
    participant?: string | null;
  }): Promise<unknown>;
  get(requestId: string): Promise<StoredInteraction | undefined>;
  getOpenByThread(gateway: string, thread: string): Promise<StoredInteraction | undefined>;
  /** open -> resolved; false when it was not open. */
  resolve(requestId: string, decision: Decision): Promise<boolean>;
  listOpen(): Promise<StoredInteraction[]>;
  /** Open requests expired at `now`. */
  expired(now: number): Promise<StoredInteraction[]>;
}

export interface OutboxRow {
  id: number;
  gateway: string;
  thread: string;
  idemKey: string;
  /** `file`: one file of a reply (payload `OutboundFilePayload`), sent with `Gateway.sendFile`. */
  kind: "text" | "approval" | "decided" | "file";
  payload: unknown;
  status: "pending" | "sent" | "dead";
  attempts: number;
  nextAttemptAt: number;
  platformId: string | null;
  createdAt: number;
  /** W3C `traceparent` the piece's send continues (absent when tracing was off). */
  traceparent?: string | null;
}

export interface SessionOutbox {
  /** Inserts in order; an existing idemKey is skipped. */
  enqueue(
    items: readonly {
      gateway: string;
      thread: string;
      idemKey: string;
      kind: OutboxRow["kind"];
      payload: unknown;
      notBefore?: number;
      traceparent?: string;
    }[],
  ): Promise<number[]>;
  /**
   * Due pending rows, each the oldest pending row of its (gateway, thread). `fence` (several
   * instances): refused, with an error whose `code` is `role_not_held`, unless the session it names
   * holds every lock it lists (PostgreSQL; a store of one instance has no roles and may ignore it).
   * `share` (a sender restricted to some partitions, outbox-partition.ts): only the heads of its
   * partitions count (the limit too); a store of one instance may ignore it (the sender filters too).
   */
  due(now: number, limit?: number, fence?: RoleFence, share?: OutboxShare): Promise<OutboxRow[]>;
  /** The earliest due time among thread heads; `share`: only its partitions' heads, as in `due`. */
  nextDueAt(share?: OutboxShare): Promise<number | undefined>;
  markSent(id: number, platformId?: string): Promise<boolean>;
  markRetry(id: number, nextAttemptAt: number, error: string): Promise<boolean>;
  markDead(id: number, error: string): Promise<boolean>;
  /**
   * The platform later reports a sent piece undelivered: sent -> dead, or with `retry` and attempts
   * left (`attempts < retry.maxAttempts`) sent -> pending at `retry.at`. False when no sent row matched.
   */
  markUndelivered(
    gateway: string,
    thread: string,
    platformId: string,
    error: string,
    retry?: { at: number; maxAttempts: number },
  ): Promise<boolean>;
  list(gateway: string, thread: string, after?: number, limit?: number): Promise<OutboxRow[]>;
  prune(before: number): Promise<number>;
}

export interface SessionGatewayState {
  get<T = unknown>(gateway: string, key: string): Promise<T | undefined>;
  set(gateway: string, key: string, value: unknown): Promise<void>;
  delete(gateway: string, key: string): Promise<void>;
}

export interface SessionSeenTokens {
  claim(
    scope: string,
    token: string,
    value: string,
    expiresAt: number,
  ): Promise<{ claimed: true } | { claimed: false; value: string }>;
  prune(now?: number): Promise<number>;
}

/** A pairing code handed to an unknown direct-message sender under `dmPolicy: pairing`. */
export interface PairingRecord {
  code: string;
  gateway: string;
  sender: string;
  thread: string;
  displayName: string | null;
  status: "pending" | "approved" | "denied";
  createdAt: number;
  expiresAt: number;
}

export interface ApprovedSender {
  gateway: string;
  sender: string;
  approvedAt: number;
  code: string | null;
}

/** Pairing codes, approved senders and rate-limit windows, shared by every instance of a store. */
export interface SessionSenderAccess {
  isApproved(gateway: string, sender: string): Promise<boolean>;
  /** The newest code of a sender that has not expired at `now` (any status). */
  currentCode(gateway: string, sender: string, now: number): Promise<PairingRecord | undefined>;
  /** Inserts a pending code; false when the code is taken. */
  addCode(record: Omit<PairingRecord, "status">): Promise<boolean>;
  /**
   * Counts one message in the fixed window `key` of `windowMs`, atomically (concurrent callers on
   * any instance each get their own count): a window older than `windowMs` starts again at `now`.
   */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; windowStart: number }>;
  /** Pending codes not expired at `now`, oldest first. */
  pendingCodes(now: number): Promise<PairingRecord[]>;
  approvedSenders(): Promise<ApprovedSender[]>;
  /** pending (not expired) -> approved, and the sender approved; undefined when no such code. */
  approve(code: string, now: number): Promise<PairingRecord | undefined>;
  /** pending (not expired) -> denied; undefined when no such code. */
  deny(code: string, now: number): Promise<PairingRecord | undefined>;
  /** Forgets an approved sender; false when it was not approved. */
  revoke(gateway: string, sender: string): Promise<boolean>;
}

export interface SessionStore {
  inbox: SessionInbox;
  interactions: SessionInteractions;
  outbox: SessionOutbox;
  gatewayState: SessionGatewayState;
  seenTokens: SessionSeenTokens;
  runStore: RunStore;
  /** Sender access (pairing, approvals, rate limits); a store without it cannot enforce them. */
  senderAccess?: SessionSenderAccess;
  /** Stored files (attachments, files of replies); a store without it sends file pieces as a note. */
  blobs?: SessionBlobs;
  /**
   * Runs `fn` in one write transaction (nested calls are savepoints): the store calls awaited
   * inside it commit together or not at all.
   */
  transaction<T>(fn: () => Promise<T> | T): Promise<T>;
  /** Whether the caller runs inside a `transaction` now (a store without it: never known, so never). */
  inTransaction?(): boolean;
}

/** True when a stored interaction has been decided. */
export function isDecided(rec: StoredInteraction): boolean {
  return rec.status !== "open";
}
