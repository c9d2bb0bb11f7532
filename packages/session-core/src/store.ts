// The durable tables the session needs. `ChatDb` from @agentsvc/chat-store satisfies this shape;
// it is declared here so the session depends on behaviour, not on one store implementation.
import type { Decision, DecisionKind, RunOrigin, RunStore } from "@agentsvc/agent-core";

type MaybePromise<T> = T | Promise<T>;

export interface InboxRecord {
  id: number;
  gateway: string;
  dedupKey: string;
  thread: string;
  text: string;
  origin: RunOrigin | null;
  status: string;
}

export type InboxDoneStatus = "done" | "rejected" | "failed";

export interface SessionInbox {
  /** Atomic; unique on (gateway, dedupKey); a new record is `queued`. */
  accept(input: {
    gateway: string;
    dedupKey: string;
    thread: string;
    text: string;
    origin: RunOrigin;
  }): MaybePromise<{ accepted: true; id: number } | { accepted: false; duplicate: true }>;
  markRunning(id: number): MaybePromise<unknown>;
  markDone(id: number, status: InboxDoneStatus): MaybePromise<unknown>;
  /** Queued or running records, oldest first. */
  unfinished(): MaybePromise<InboxRecord[]>;
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
  }): MaybePromise<unknown>;
  get(requestId: string): MaybePromise<StoredInteraction | undefined | null>;
  getOpenByThread(gateway: string, thread: string): MaybePromise<StoredInteraction | undefined | null>;
  resolve(requestId: string, decision: Decision): MaybePromise<unknown>;
}

export interface SessionStore {
  inbox: SessionInbox;
  interactions: SessionInteractions;
  runStore: RunStore;
}

/** True when a stored interaction has been decided. */
export function isDecided(rec: StoredInteraction): boolean {
  return rec.status !== "open";
}
