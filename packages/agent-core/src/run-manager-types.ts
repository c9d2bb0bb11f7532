import type { ChunkEnvelope } from "./chunk.js";
import type { AttachmentRef } from "./media.js";
import type { Message, ToolCall } from "./messages.js";
import type { FinishReason, TurnError, Usage } from "./model-error.js";
import type { Decision, DecisionKind, RunOrigin, RunOptions, SuspendedRun } from "./run-store.js";

export type RunStatus = "running" | "suspended" | "completed" | "cancelled" | "failed";

/** The caller of a control operation; `userId` comes from the server's identity resolution. */
export interface Caller {
  userId: string;
}

export interface StartRunInput {
  /** One user message, or several spliced into one turn. */
  input: string | string[];
  /** Files sent with the message (the last one, when `input` is several): stored on its user message. */
  attachments?: AttachmentRef[];
  /** Taken when supplied, otherwise minted. Always echoed back. */
  threadId?: string;
  userId: string;
  conversationId: string;
  origin?: RunOrigin;
  /** Awaited after the turn is persisted and before the stream ends (conversation index upkeep). */
  onPersisted?: (result: TurnResult) => Promise<void> | void;
  /**
   * The caller's writes that must commit with the turn's messages (a gateway marks its inbox record
   * done and queues the reply here). Runs inside `Memory.append`'s `within` (the store's
   * transaction), once, when the turn ends (not when it suspends; a continuation after approval
   * runs it at its end).
   */
  persistWith?: (result: TurnResult) => void | Promise<void>;
  /**
   * Awaited when the turn ends (not when it suspends), just before `persistWith`'s transaction
   * opens: the caller stops what must not outlive the commit (a streamed preview's platform calls).
   * Runs outside the transaction, so it may wait for network calls. A throw is logged and ignored.
   */
  beforePersist?: () => void | Promise<void>;
}

/** Options of `resume` and `continueInterrupted`. */
export interface ContinueOptions {
  /** Writes committed together with the recorded decision (resolving an interaction). */
  record?: () => void | Promise<void>;
  /** As `StartRunInput.persistWith`, for the continued turn. */
  persistWith?: (result: TurnResult) => void | Promise<void>;
  /** As `StartRunInput.beforePersist`, for the continued turn. */
  beforePersist?: () => void | Promise<void>;
  /**
   * Starts the continued turn inside what the caller sets up from the run it continues (the saved
   * run, as the manager read it from its RunStore once its checks passed: found, pending, the
   * caller's): call `start` once, synchronously, and return what it returns. Everything the turn
   * does runs inside it, so an AsyncLocalStorage context set around `start` is the turn's (the
   * server's spend meter: whose run it is). Saves the caller a read of its own of the saved run.
   */
  startIn?: <T>(saved: SuspendedRun, start: () => T) => T;
}

export interface TurnResult {
  threadId: string;
  status: RunStatus;
  /** Assistant text of the whole turn (including any continuation after approval). */
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  /** Messages this turn added to memory. */
  newMessages: Message[];
  error?: TurnError;
  /** Why the turn's last model call ended (`length`: the answer was cut at the output limit). */
  finishReason?: FinishReason;
  /** Tokens of every model call of this turn, summed (continuations included). */
  usage?: Usage;
}

export interface RunEvent {
  /** 1-based, strictly increasing per threadId for the life of the run (across a resume). */
  seq: number;
  chunk: ChunkEnvelope;
}

export interface RunHandle {
  readonly threadId: string;
  readonly options: RunOptions;
  readonly status: RunStatus;
  /** Every event with seq > `after` (buffered ones first, then live); ends when the run ends or suspends. */
  events(after?: number): AsyncIterable<RunEvent>;
  /** Settles when the run ends or suspends; never rejects (errors are in `status`/`error`). */
  readonly done: Promise<TurnResult>;
}

export interface PendingApproval {
  threadId: string;
  toolCallId: string;
  toolName: string;
  arguments: unknown;
  allowedDecisions: DecisionKind[];
  createdAt: number;
}

export interface RunManagerApi {
  /** Throws `AgentsvcError` code `thread_busy` (409) when the threadId is running or suspended. */
  start(input: StartRunInput): RunHandle;
  get(threadId: string): RunHandle | undefined;
  /** False when nothing of the caller's runs under that id. */
  cancel(threadId: string, caller: Caller, reason?: string): boolean;
  steer(threadId: string, text: string, caller: Caller): boolean;
  /** 404 `not_found` when nothing is pending, 403 `forbidden` for a non-owner, 400 for a bad decision. */
  resume(
    threadId: string,
    decision: Omit<Decision, "decidedBy">,
    caller: Caller,
    options?: ContinueOptions,
  ): Promise<RunHandle>;
  /** Continues a run whose decision was recorded before a restart (optional: RunManager has it). */
  continueInterrupted?(threadId: string, options?: ContinueOptions): Promise<RunHandle>;
  /** Checkpointed continuations left by a previous process (optional: RunManager has it). */
  interrupted?(threadId?: string): Promise<SuspendedRun[]>;
  /**
   * Forgets what this process knows of a thread that is not running here (a suspension, a retained
   * record), because another instance sharing the store may run it next. A running thread is kept.
   */
  release?(threadId: string): void;
  /**
   * Several instances: cancel or steer the run wherever it executes (this process first, then the
   * others). False when no instance runs it. A plain RunManager has only the local `cancel`/`steer`.
   */
  cancelAnywhere?(threadId: string, caller: Caller, reason?: string): Promise<boolean>;
  steerAnywhere?(threadId: string, text: string, caller: Caller): Promise<boolean>;
  /** Undefined for a non-owner, as if nothing were pending. */
  pending(threadId: string, caller: Caller): Promise<PendingApproval | undefined>;
  /** Runs of one of the caller's conversations awaiting a decision (optional: RunManager has it). */
  pendingInConversation?(conversationId: string, caller: Caller): Promise<PendingApproval[]>;
  onSuspended(listener: (run: SuspendedRun, pending: PendingApproval) => void): () => void;
  /** Resolves once every running turn has ended, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
}
