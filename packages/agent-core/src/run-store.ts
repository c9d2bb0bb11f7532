import type { AttachmentRef } from "./media.js";
import type { Message, ToolCall } from "./messages.js";
import type { Usage } from "./model-error.js";

/** Where a run came from, so its reply and any approval request go back the same way. */
export interface RunOrigin {
  /** Registry key of the gateway (push-style type or channel-adapter entry name). */
  gateway: string;
  /** The platform thread id. */
  thread: string;
  /** Adapter-specific routing data (chat id, message id to reply to, ...). JSON only. */
  meta?: Record<string, unknown>;
  /** Who wrote the message that started the run (platform identity); the one who may decide its approvals. */
  author?: { id: string; displayName?: string; isBot?: boolean };
  /** W3C `traceparent` of the inbound message (tracing on): its turn and reply continue that trace. */
  traceparent?: string;
}

/** Where a recorded inbound message is: waiting, in a turn, or finished. */
export type InboxStatus = "queued" | "running" | "done" | "rejected" | "failed";

/**
 * One inbound gateway message as the store keeps it and the gateway session reads it back
 * (recorded before the platform is acknowledged, picked up again after a restart). Declared here,
 * beside RunOrigin, because both the store (chat-store) and the session (session-core) use it and
 * neither depends on the other.
 */
export interface InboxRecord {
  id: number;
  gateway: string;
  /** The platform's id of the message; unique per gateway. */
  dedupKey: string;
  thread: string;
  text: string;
  origin: RunOrigin;
  status: InboxStatus;
  receivedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** The message's attachments (blob refs), when it had any. */
  attachments?: AttachmentRef[];
}

/** Options of one run. Checkpointed with a suspension, so the saved state knows its owner. */
export interface RunOptions {
  threadId: string;
  userId: string;
  conversationId: string;
  origin?: RunOrigin;
  /**
   * W3C `traceparent` of the run's first `invoke_agent` span (tracing on), kept with a suspended
   * run: the segment continued after a decision (or a restart) is its child, in the same trace.
   */
  traceparent?: string;
}

export type DecisionKind = "approve" | "reject" | "edit";

export interface Decision {
  decision: DecisionKind;
  /** For `edit`: replacement tool arguments. */
  editedData?: unknown;
  reason?: string;
  /** Filled by the server from the caller's identity; never read from a request body. */
  decidedBy: string;
}

/** State of a run suspended on an approval-gated tool call. */
export interface SuspendedRun {
  options: RunOptions;
  agentName: string;
  /** Messages of the turn so far, beyond what memory held when the turn began. */
  turnMessages: Message[];
  /** The call awaiting a decision. */
  pendingCall: ToolCall;
  /** Calls of the same assistant message not yet executed, in order, after the pending one. */
  remainingCalls: ToolCall[];
  /** Steer text queued but not yet spliced in. */
  queuedSteers: string[];
  createdAt: number;
  /** Tokens of the turn's model calls before the suspension (the continued turn adds its own). */
  usage?: Usage;
  /** Seq of the last event before the suspension (the `middleware_stop` chunk); a resume continues after it. */
  lastSeq?: number;
  /**
   * Set once a decision is recorded: the run is no longer waiting but continuing, and this row is
   * its checkpoint until the turn is saved. A restart continues it from here (RunManager
   * `continueInterrupted`), so a crash neither loses the turn nor runs a tool twice.
   */
  continuation?: ContinuationState;
}

/**
 * - `decided`: the decision is recorded; `pendingCall` has not started.
 * - `executing`: `pendingCall` started and may have run; a restart gives it an "interrupted"
 *   result instead of running it again.
 * - `continuing`: `pendingCall`'s result is in `turnMessages`; `remainingCalls` run next, then the model.
 */
export interface ContinuationState {
  phase: "decided" | "executing" | "continuing";
  /** The decision applied to `pendingCall` (only read in phase `decided`). */
  decision: Decision;
}

export interface RunStore {
  /** `within`: the caller's writes, in the same transaction as the save (durable stores). */
  save(run: SuspendedRun, within?: () => void | Promise<void>): Promise<void>;
  get(threadId: string): Promise<SuspendedRun | undefined>;
  delete(threadId: string): Promise<void>;
  /**
   * Optional: delete inside a `Memory.append` `within` callback when memory and runs share one
   * database, so a continued turn's messages and the end of its checkpoint commit together.
   */
  deleteWithin?(threadId: string): void | Promise<void>;
  /** Suspended runs of one conversation, so a clear or new message cannot silently drop them. */
  listByConversation(userId: string, conversationId: string): Promise<SuspendedRun[]>;
  /** Every suspended run (boot-time recovery of gateway approvals). */
  list(): Promise<SuspendedRun[]>;
}
