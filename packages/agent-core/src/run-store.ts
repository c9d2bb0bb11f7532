import type { Message, ToolCall } from "./messages.js";

/** Where a run came from, so its reply and any approval request go back the same way. */
export interface RunOrigin {
  /** Registry key of the gateway (push-style type or channel-adapter entry name). */
  gateway: string;
  /** The platform thread id. */
  thread: string;
  /** Adapter-specific routing data (chat id, message id to reply to, ...). JSON only. */
  meta?: Record<string, unknown>;
}

/** Options of one run. Checkpointed with a suspension, so the saved state knows its owner. */
export interface RunOptions {
  threadId: string;
  userId: string;
  conversationId: string;
  origin?: RunOrigin;
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
  /** Seq of the last event before the suspension (the `middleware_stop` chunk); a resume continues after it. */
  lastSeq?: number;
}

export interface RunStore {
  save(run: SuspendedRun): Promise<void>;
  get(threadId: string): Promise<SuspendedRun | undefined>;
  delete(threadId: string): Promise<void>;
  /** Suspended runs of one conversation, so a clear or new message cannot silently drop them. */
  listByConversation(userId: string, conversationId: string): Promise<SuspendedRun[]>;
  /** Every suspended run (boot-time recovery of gateway approvals). */
  list(): Promise<SuspendedRun[]>;
}
