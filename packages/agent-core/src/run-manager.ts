import type { LanguageModelV4, SharedV4Warning } from "@ai-sdk/provider";
import { createSummarizer } from "./compaction.js";
import type { AgentDefinition } from "./define.js";
import { AgentsvcError } from "./errors.js";
import { RunEventLog } from "./event-log.js";
import { fault } from "./fault.js";
import { mintThreadId } from "./ids.js";
import { InMemoryRunStore } from "./in-memory-run-store.js";
import type { Memory, MemoryScope } from "./memory.js";
import type { Message } from "./messages.js";
import type { ModelAttempt } from "./model-call.js";
import type { ResolvedModel } from "./models/resolved-model.js";
import { resolveModel } from "./models/resolve-model.js";
import { isDemoModel } from "./models/demo-model.js";
import type { ModelSettings } from "./models/settings.js";
import { toModelTools } from "./prompt.js";
import { type BlobReader, RefusedFiles } from "./prompt-files.js";
import type { TranscribeAttachment } from "./transcription.js";
import type {
  Caller,
  ContinueOptions,
  PendingApproval,
  RunHandle,
  RunManagerApi,
  StartRunInput,
  TurnResult,
} from "./run-manager-types.js";
import { RetentionQueue } from "./retention.js";
import { RunSegment } from "./run-segment.js";
import type { Decision, DecisionKind, RunOptions, RunStore, SuspendedRun } from "./run-store.js";
import { type AnyTool, parseToolInput, toolInputJsonSchema } from "./tool-input.js";
import { type AppliedDecision, Turn, type TurnDeps, type TurnOutcome, errorMessage } from "./turn.js";
import { checkpointer, continuationPlan } from "./continuation.js";
import { WindowMemory } from "./window-memory.js";
import { agentSpan } from "./trace.js";

/** The subset of a pino logger the runtime uses. */
export interface RunLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RunManagerOptions {
  agent: AgentDefinition;
  /** Default: a `WindowMemory` built from `agent.memory`. */
  memory?: Memory;
  /** Default: an `InMemoryRunStore`. */
  runStore?: RunStore;
  /** Extra tools (e.g. resolved MCP tools), next to `agent.tools`. Names must be unique. */
  tools?: AnyTool[];
  /**
   * Overrides the model built from `agent.model`: a language model (tests; the agent's settings and
   * fallbacks still apply) or a whole resolved model (the server's, built with its project root).
   */
  model?: LanguageModelV4 | ResolvedModel;
  logger?: RunLogger;
  /** How long a finished or suspended run's events stay replayable. Default 60 000 ms. */
  retainMs?: number;
  /** Most finished runs kept replayable at once; past it the oldest goes first. Default 10 000. */
  maxRetained?: number;
  /**
   * Most bytes of finished runs kept replayable at once (each run's messages and reply, by their
   * text and JSON length); past it the oldest goes first. Default 64 MiB.
   */
  maxRetainedBytes?: number;
  /** Where API keys are read from when the model is built here. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Hears every model attempt once its outcome is decided (metrics count them by outcome). */
  onModelAttempt?: (attempt: ModelAttempt) => void;
  /**
   * Where user messages' stored files are read from when a model takes them as file parts
   * (chat-store's `BlobStore`). Without it every attachment reaches the model as a note.
   */
  blobs?: BlobReader;
  /**
   * Gives each stored audio file of a new turn's user message its transcript before the first
   * model call (the server's: the entry's `media.transcribe`). Failures are logged and skipped.
   */
  transcribe?: TranscribeAttachment;
}

export interface ToolDescription {
  name: string;
  description: string;
  /** True when some or all calls wait for a human decision. */
  needsApproval: boolean;
  inputSchema: Record<string, unknown>;
}

export interface AgentDescription {
  agentName: string;
  modelName: string;
  demoModel: boolean;
  tools: ToolDescription[];
  canSummarize: boolean;
}

interface RunRecord {
  options: RunOptions;
  log: RunEventLog;
  segment: RunSegment;
  turn?: Turn;
  onPersisted?: StartRunInput["onPersisted"];
  persistedNotified: boolean;
  persistWith?: StartRunInput["persistWith"];
  beforePersist?: StartRunInput["beforePersist"];
  /** A continuation: its RunStore row is the checkpoint and ends with the turn's commit. */
  checkpointed?: boolean;
}

const DECISIONS: DecisionKind[] = ["approve", "reject", "edit"];
const silentLogger: RunLogger = { info() {}, warn() {}, error() {} };

function joinNonEmpty(parts: string[]): string {
  return parts.filter((p) => p.length > 0).join("\n\n");
}

function summarizeTurn(
  threadId: string,
  outcome: TurnOutcome,
  turn: Turn,
  newMessages: Message[],
): TurnResult {
  const turnMessages = turn.turnMessages;
  const assistants = turnMessages.filter(
    (m): m is Extract<Message, { role: "assistant" }> => m.role === "assistant",
  );
  const result: TurnResult = {
    threadId,
    status: outcome.status,
    text: joinNonEmpty(assistants.map((m) => m.content)),
    reasoning: joinNonEmpty(assistants.map((m) => m.reasoning ?? "")),
    toolCalls: assistants.flatMap((m) => m.toolCalls ?? []),
    newMessages,
  };
  if (outcome.status === "failed") result.error = outcome.error;
  if (turn.finishReason) result.finishReason = turn.finishReason;
  if (turn.usage) result.usage = turn.usage;
  return result;
}

/**
 * Runs turns of one agent by threadId: start, cancel, steer, suspend on approval, resume.
 * Events of each run are buffered for replay while it lives and `retainMs` after.
 */
export class RunManager implements RunManagerApi {
  readonly agent: AgentDefinition;
  readonly memory: Memory;
  readonly runStore: RunStore;
  readonly model: LanguageModelV4;
  private readonly resolved: ResolvedModel;
  private readonly settings: ModelSettings;
  private readonly warned = new Set<string>();
  private readonly apiKeyEnvVar: string | undefined;
  private readonly attemptListener: ((attempt: ModelAttempt) => void) | undefined;
  private readonly blobs: BlobReader | undefined;
  private readonly refusedFiles = new RefusedFiles();
  private readonly transcribe: TranscribeAttachment | undefined;
  private readonly tools = new Map<string, AnyTool>();
  private readonly modelTools;
  private readonly logger: RunLogger;
  private readonly retained: RetentionQueue;
  private readonly records = new Map<string, RunRecord>();
  /** Suspended runs known to this process (own suspensions plus those found at `ready`). */
  private readonly suspended = new Map<string, { userId: string; conversationId: string }>();
  private readonly continuing = new Set<string>();
  /** Continuations recorded by a previous process, busy until `continueInterrupted` takes them. */
  private readonly interruptedThreads = new Set<string>();
  private readonly suspendListeners = new Set<(run: SuspendedRun, pending: PendingApproval) => void>();
  private draining = false;
  private readonly loaded: Promise<void>;

  constructor(options: RunManagerOptions) {
    this.agent = options.agent;
    this.logger = options.logger ?? silentLogger;
    this.retained = new RetentionQueue(
      options.retainMs ?? 60_000,
      Math.max(1, options.maxRetained ?? 10_000),
      (threadId) => {
        if (this.records.get(threadId)?.segment.status !== "running") this.records.delete(threadId);
      },
      Math.max(1, options.maxRetainedBytes ?? 64 * 1024 * 1024),
    );
    this.runStore = options.runStore ?? new InMemoryRunStore();
    this.blobs = options.blobs;
    const transcribe = options.transcribe;
    // A failed transcription is logged; the file then reaches the model without a transcript.
    this.transcribe = transcribe
      ? (file, origin, signal) =>
          transcribe(file, origin, signal).catch((err: unknown) => {
            this.logger.warn(
              { err: errorMessage(err), blob: file.blob },
              "could not transcribe an audio file",
            );
            return undefined;
          })
      : undefined;
    const given = options.model;
    this.resolved =
      given && !("specificationVersion" in given)
        ? given
        : resolveModel(options.agent.model, { env: options.env, primary: given });
    this.model = this.resolved.model;
    this.settings = this.resolved.settings;
    this.apiKeyEnvVar = this.resolved.apiKeyEnvVar;
    this.attemptListener = options.onModelAttempt;
    this.memory =
      options.memory ??
      new WindowMemory({
        maxMessages: options.agent.memory?.maxMessages,
        maxPromptTokens: options.agent.memory?.maxPromptTokens,
        summaryThreshold: options.agent.memory?.summaryThreshold,
        summarize: createSummarizer(options.agent.memory, options.agent.model, { env: options.env }),
      });
    for (const tool of [...(options.agent.tools ?? []), ...((options.tools ?? []) as AnyTool[])]) {
      if (this.tools.has(tool.name)) {
        throw new AgentsvcError(
          "duplicate_tool",
          `agent ${options.agent.name}: tools: duplicate tool name "${tool.name}" (agent tools and extra tools must have unique names)`,
          500,
        );
      }
      this.tools.set(tool.name, tool);
    }
    this.modelTools = toModelTools([...this.tools.values()]);
    this.loaded = this.loadSuspended();
  }

  /** Resolves once suspended runs already in the RunStore (from before a restart) are known. */
  ready(): Promise<void> {
    return this.loaded;
  }

  private async loadSuspended(): Promise<void> {
    try {
      for (const run of await this.runStore.list()) {
        if (run.agentName !== this.agent.name) continue;
        if (run.continuation) {
          this.interruptedThreads.add(run.options.threadId);
          continue;
        }
        this.suspended.set(run.options.threadId, {
          userId: run.options.userId,
          conversationId: run.options.conversationId,
        });
      }
    } catch (error) {
      this.logger.error({ err: errorMessage(error) }, "could not list suspended runs from the run store");
    }
  }

  describe(): AgentDescription {
    return {
      agentName: this.agent.name,
      modelName: this.model.modelId,
      demoModel: isDemoModel(this.model),
      tools: [...this.tools.values()].map((tool) => ({
        name: tool.name,
        description: tool.description,
        needsApproval: tool.needsApproval !== undefined && tool.needsApproval !== false,
        inputSchema: toolInputJsonSchema(tool),
      })),
      canSummarize: this.memory.canSummarize,
    };
  }

  start(input: StartRunInput): RunHandle {
    if (this.draining)
      throw new AgentsvcError("shutting_down", "the service is shutting down; try again shortly", 503);
    const inputs = typeof input.input === "string" ? [input.input] : input.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((t) => typeof t !== "string")) {
      throw new AgentsvcError(
        "invalid_input",
        "input: expected a string or a non-empty array of strings",
        400,
      );
    }
    if (!input.userId || !input.conversationId) {
      throw new AgentsvcError("invalid_input", "userId and conversationId: expected non-empty strings", 400);
    }
    const threadId = input.threadId ?? mintThreadId();
    const existing = this.records.get(threadId);
    if (
      (existing && existing.segment.status === "running") ||
      this.suspended.has(threadId) ||
      this.continuing.has(threadId) ||
      this.interruptedThreads.has(threadId)
    ) {
      throw new AgentsvcError(
        "thread_busy",
        `thread ${threadId} has a run in progress or awaiting approval`,
        409,
      );
    }
    for (const [pendingThread, owner] of this.suspended) {
      if (owner.userId === input.userId && owner.conversationId === input.conversationId) {
        throw new AgentsvcError(
          "approval_pending",
          `conversation ${input.conversationId} has a run awaiting approval (threadId ${pendingThread}); approve or reject it first`,
          409,
        );
      }
    }
    this.retained.remove(threadId);
    const options: RunOptions = { threadId, userId: input.userId, conversationId: input.conversationId };
    if (input.origin) options.origin = input.origin;
    const log = new RunEventLog(1);
    const segment = new RunSegment(threadId, options, log, 1);
    const record: RunRecord = {
      options,
      log,
      segment,
      onPersisted: input.onPersisted,
      persistedNotified: false,
      persistWith: input.persistWith,
      beforePersist: input.beforePersist,
    };
    this.records.set(threadId, record);
    const turn = new Turn(
      this.turnDeps(log),
      options,
      inputs.map((content, i): Message => {
        const refs = i === inputs.length - 1 ? input.attachments : undefined;
        return refs?.length ? { role: "user", content, attachments: refs } : { role: "user", content };
      }),
    );
    void this.runSegment(record, turn);
    return segment;
  }

  get(threadId: string): RunHandle | undefined {
    return this.records.get(threadId)?.segment;
  }

  cancel(threadId: string, caller: Caller, reason?: string): boolean {
    const record = this.records.get(threadId);
    if (record && record.segment.status === "running") {
      if (record.options.userId !== caller.userId || !record.turn) return false;
      this.logger.info({ threadId, reason }, "run cancelled");
      record.turn.cancel();
      return true;
    }
    const owner = this.suspended.get(threadId);
    if (owner && owner.userId === caller.userId && !this.continuing.has(threadId)) {
      // Cancelling a suspended run closes its turn: pending calls get "cancelled" results.
      this.logger.info({ threadId, reason }, "suspended run cancelled");
      this.continueSuspended(threadId, caller, "cancel").catch((error) =>
        this.logger.warn({ threadId, err: errorMessage(error) }, "could not cancel the suspended run"),
      );
      return true;
    }
    return false;
  }

  steer(threadId: string, text: string, caller: Caller): boolean {
    const record = this.records.get(threadId);
    if (!record || record.segment.status !== "running" || record.options.userId !== caller.userId)
      return false;
    if (!record.turn || record.turn.cancelled || typeof text !== "string" || text.length === 0) return false;
    record.turn.steers.push(text);
    return true;
  }

  async resume(
    threadId: string,
    decision: Omit<Decision, "decidedBy">,
    caller: Caller,
    options: ContinueOptions = {},
  ): Promise<RunHandle> {
    const kind = (decision as { decision?: unknown } | undefined)?.decision;
    if (typeof kind !== "string" || !DECISIONS.includes(kind as DecisionKind)) {
      throw new AgentsvcError(
        "invalid_decision",
        `decision: expected one of approve, reject, edit (got ${JSON.stringify(kind)})`,
        400,
      );
    }
    if (decision.reason !== undefined && typeof decision.reason !== "string") {
      throw new AgentsvcError("invalid_decision", "reason: expected a string", 400);
    }
    // decidedBy is always the caller: whatever else came with the decision is not read.
    const applied: AppliedDecision = { decision: kind as DecisionKind, decidedBy: caller.userId };
    if (decision.reason) applied.reason = decision.reason;
    if (kind === "edit") {
      if (decision.editedData === undefined) {
        throw new AgentsvcError("invalid_decision", "editedData: required when decision is edit", 400);
      }
      applied.editedData = decision.editedData;
    }
    return this.continueSuspended(threadId, caller, applied, options);
  }

  private async continueSuspended(
    threadId: string,
    caller: Caller,
    decision: AppliedDecision | "cancel",
    options: ContinueOptions = {},
  ): Promise<RunSegment> {
    if (this.draining)
      throw new AgentsvcError("shutting_down", "the service is shutting down; try again shortly", 503);
    const live = this.records.get(threadId);
    if (this.continuing.has(threadId) || live?.segment.status === "running") {
      throw new AgentsvcError("thread_busy", `thread ${threadId} is already running`, 409);
    }
    this.continuing.add(threadId);
    try {
      const saved = await this.runStore.get(threadId);
      // A recorded decision (continuation) is no longer pending: a second decision finds nothing.
      if (!saved || saved.continuation)
        throw new AgentsvcError("not_found", `no run awaiting approval under threadId ${threadId}`, 404);
      if (saved.options.userId !== caller.userId) {
        throw new AgentsvcError(
          "forbidden",
          `thread ${threadId} belongs to another user; only its owner can decide`,
          403,
        );
      }
      if (decision !== "cancel" && decision.decision === "edit") {
        const tool = this.tools.get(saved.pendingCall.name);
        const parsed = tool
          ? parseToolInput(tool, decision.editedData)
          : { ok: true as const, value: decision.editedData };
        if (!parsed.ok) throw new AgentsvcError("invalid_edit", `editedData: ${parsed.message}`, 400);
        decision.parsedEdit = parsed.value;
      }
      const applied: AppliedDecision =
        decision === "cancel" ? { decision: "reject", decidedBy: caller.userId } : decision;
      // The decision is recorded (with the caller's own writes) before anything runs: the row
      // stays as the continuation's checkpoint until the turn is saved.
      const { parsedEdit: _parsed, ...recorded } = applied;
      const decided: SuspendedRun = { ...saved, continuation: { phase: "decided", decision: recorded } };
      await this.runStore.save(decided, options.record);
      this.suspended.delete(threadId);
      const { record, turn } = this.continuationOf(decided, options);
      if (decision === "cancel") turn.cancel();
      const start = () =>
        this.runSegment(record, turn, {
          calls: [saved.pendingCall, ...saved.remainingCalls],
          decision: applied,
        });
      void (options.startIn ? options.startIn(saved, start) : start());
      return record.segment;
    } finally {
      this.continuing.delete(threadId);
    }
  }

  /** Checkpointed continuations left by a previous process (see `continueInterrupted`). */
  release(threadId: string): void {
    if (this.records.get(threadId)?.segment.status === "running" || this.continuing.has(threadId)) return;
    this.suspended.delete(threadId);
    this.interruptedThreads.delete(threadId);
    this.records.delete(threadId);
    this.retained.remove(threadId);
  }

  /** Continuations recorded before a restart (of one thread when given: no listing of every run). */
  async interrupted(threadId?: string): Promise<SuspendedRun[]> {
    const runs =
      threadId === undefined
        ? await this.runStore.list()
        : [await this.runStore.get(threadId)].filter((r) => r !== undefined);
    return runs.filter((r) => r.continuation && r.agentName === this.agent.name);
  }

  /**
   * Continues a run whose decision was recorded before a restart, from its last checkpoint: a
   * decided call runs, a call that was running gets an "interrupted" result (never a second run),
   * then the remaining calls and the model.
   */
  async continueInterrupted(threadId: string, options: ContinueOptions = {}): Promise<RunHandle> {
    const saved = await this.runStore.get(threadId);
    if (!saved?.continuation)
      throw new AgentsvcError("not_found", `no interrupted continuation under threadId ${threadId}`, 404);
    if (this.records.get(threadId)?.segment.status === "running" || this.continuing.has(threadId))
      throw new AgentsvcError("thread_busy", `thread ${threadId} is already running`, 409);
    this.interruptedThreads.delete(threadId);
    const { record, turn } = this.continuationOf(saved, options);
    const start = () => this.runSegment(record, turn, continuationPlan(saved, turn, this.tools));
    void (options.startIn ? options.startIn(saved, start) : start());
    return record.segment;
  }

  /**
   * The record and turn a continuation runs in: the live record when there is one (same event log,
   * seq goes on), else a new one. Its progress is checkpointed in the RunStore row.
   */
  private continuationOf(saved: SuspendedRun, options: ContinueOptions): { record: RunRecord; turn: Turn } {
    const threadId = saved.options.threadId;
    let record = this.records.get(threadId);
    this.retained.remove(threadId);
    const log = record?.log ?? new RunEventLog((saved.lastSeq ?? 0) + 1);
    const segment = new RunSegment(threadId, saved.options, log, log.lastSeq + 1);
    if (record) {
      record.segment = segment;
      record.options = saved.options;
    } else {
      record = { options: saved.options, log, segment, persistedNotified: true };
      this.records.set(threadId, record);
    }
    record.checkpointed = true;
    record.persistWith = options.persistWith;
    record.beforePersist = options.beforePersist;
    const turn = new Turn(
      this.turnDeps(log),
      saved.options,
      saved.turnMessages,
      saved.queuedSteers,
      saved.usage,
    );
    turn.checkpoint = checkpointer(this.runStore, saved, turn);
    return { record, turn };
  }

  async pending(threadId: string, caller: Caller): Promise<PendingApproval | undefined> {
    const saved = await this.runStore.get(threadId);
    if (!saved || saved.continuation || saved.options.userId !== caller.userId) return undefined;
    return toPending(saved);
  }

  /** Runs of one conversation awaiting a decision (a clear or a new turn must not drop them). */
  async pendingInConversation(conversationId: string, caller: Caller): Promise<PendingApproval[]> {
    const runs = await this.runStore.listByConversation(caller.userId, conversationId);
    return runs.filter((r) => !r.continuation).map(toPending);
  }

  onSuspended(listener: (run: SuspendedRun, pending: PendingApproval) => void): () => void {
    this.suspendListeners.add(listener);
    return () => this.suspendListeners.delete(listener);
  }

  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const running = [...this.records.values()]
      .filter((r) => r.segment.status === "running")
      .map((r) => r.segment.done);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([Promise.all(running).then(() => {}), timeout]);
    clearTimeout(timer);
  }

  /**
   * Saves an ended turn: its messages, the end of its checkpoint (a continuation) and the caller's
   * `persistWith` writes in one store transaction when the store can, so a crash keeps all or none.
   */
  private async commitTurn(
    record: RunRecord,
    scope: MemoryScope,
    outcome: Exclude<TurnOutcome, { status: "suspended" }>,
    turn: Turn,
  ): Promise<{ outcome: TurnOutcome; result: TurnResult }> {
    const threadId = record.options.threadId;
    const messages = turn.turnMessages;
    let result = summarizeTurn(threadId, outcome, turn, messages);
    const checkpointed = record.checkpointed === true;
    try {
      // Outside the transaction: what it waits for may be a network call.
      await record.beforePersist?.();
    } catch (error) {
      this.logger.warn(
        { threadId, err: errorMessage(error) },
        "beforePersist failed; saving the turn anyway",
      );
    }
    // Only when there is something to write with the messages: a durable memory appends a turn
    // without `within` as one statement, with no transaction around it.
    const within =
      record.persistWith || (checkpointed && this.runStore.deleteWithin)
        ? async () => {
            await record.persistWith?.(result);
            if (checkpointed) await this.runStore.deleteWithin?.(threadId);
          }
        : undefined;
    try {
      if (messages.length > 0) await this.memory.append(scope, messages, within);
      else await within?.();
      fault("turn-saved");
      if (checkpointed && !this.runStore.deleteWithin) await this.runStore.delete(threadId);
      return { outcome, result };
    } catch (error) {
      this.logger.error({ threadId, err: errorMessage(error) }, "could not persist the turn");
      const failed: TurnOutcome = {
        status: "failed",
        error: { code: "persist_failed", message: `could not save the turn: ${errorMessage(error)}` },
      };
      result = summarizeTurn(threadId, failed, turn, []);
      // The checkpoint (if any) stays: a restart continues the turn instead of losing it.
      return { outcome: failed, result };
    } finally {
      record.persistWith = undefined;
      record.beforePersist = undefined;
      record.checkpointed = false;
    }
  }

  private turnDeps(log: RunEventLog): TurnDeps {
    return {
      agent: this.agent,
      model: this.model,
      provider: this.resolved.provider,
      settings: this.settings,
      fallbacks: this.resolved.fallbacks,
      apiKeyEnvVar: this.apiKeyEnvVar,
      onModelAttempt: (attempt) => this.onModelAttempt(attempt),
      memory: this.memory,
      onWarnings: (model, warnings) => this.logWarnings(model, warnings),
      modelTools: this.modelTools,
      tools: this.tools,
      runStore: this.runStore,
      log,
      ...(this.blobs ? { blobs: this.blobs, refusedFiles: this.refusedFiles } : {}),
      ...(this.transcribe ? { transcribe: this.transcribe } : {}),
    };
  }

  /** Failed attempts are logged (a retry or a fallback shows nowhere else but the trace). */
  private onModelAttempt(attempt: ModelAttempt): void {
    if (attempt.outcome !== "ok" && attempt.outcome !== "cancelled") {
      const next =
        attempt.retryInMs !== undefined
          ? `retrying in ${attempt.retryInMs} ms`
          : attempt.fallingBackTo
            ? `falling back to ${attempt.fallingBackTo}`
            : attempt.outcome === "context_length"
              ? "the turn shrinks its history and tries once more, the first time"
              : "giving up";
      const { error, ...facts } = attempt;
      this.logger.warn(
        { ...facts, error: error?.message, detail: error?.detail },
        `model call failed; ${next}`,
      );
    }
    this.attemptListener?.(attempt);
  }

  /** A model's provider warnings (an unsupported setting, say) are the same every call: logged once. */
  private logWarnings(model: LanguageModelV4, warnings: SharedV4Warning[]): void {
    const key = `${model.provider}/${model.modelId}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(
      { provider: model.provider, model: model.modelId, warnings },
      "the model reported warnings",
    );
  }

  private async runSegment(
    record: RunRecord,
    turn: Turn,
    pending?: Parameters<Turn["run"]>[0],
  ): Promise<void> {
    record.turn = turn;
    const options = record.options;
    const scope: MemoryScope = { userId: options.userId, conversationId: options.conversationId };
    let outcome: TurnOutcome;
    // Model and tool calls are children of this span (and it of the caller's: a gateway turn; a
    // continued segment of the run's first span, whose traceparent is kept with the suspended run).
    const traced = agentSpan(this.agent.name, options.threadId, options.origin?.gateway, options.traceparent);
    if (traced.traceparent && !options.traceparent) options.traceparent = traced.traceparent;
    try {
      turn.history = await (this.memory.loadPrompt?.(scope) ?? this.memory.load(scope));
      outcome = await traced.run(() => turn.run(pending));
    } catch (error) {
      outcome = { status: "failed", error: { code: "internal_error", message: errorMessage(error) } };
    }
    traced.span.setAttribute("agentsvc.run.outcome", outcome.status);
    if (outcome.status === "failed") traced.span.fail(outcome.error.code, outcome.error.message);
    traced.span.end();
    let newMessages: Message[] = [];
    let result: TurnResult;
    if (outcome.status === "suspended") {
      this.suspended.set(options.threadId, {
        userId: options.userId,
        conversationId: options.conversationId,
      });
      result = summarizeTurn(options.threadId, outcome, turn, newMessages);
    } else {
      ({ outcome, result } = await this.commitTurn(record, scope, outcome, turn));
      newMessages = result.newMessages;
    }
    if (!record.persistedNotified && record.onPersisted) {
      record.persistedNotified = true;
      try {
        await record.onPersisted(result);
      } catch (error) {
        this.logger.warn({ threadId: options.threadId, err: errorMessage(error) }, "onPersisted failed");
      }
    }
    record.turn = undefined;
    record.segment.finish(result);
    if (outcome.status === "suspended") {
      const pendingApproval = toPending(outcome.suspended);
      for (const listener of this.suspendListeners) {
        try {
          listener(outcome.suspended, pendingApproval);
        } catch (error) {
          this.logger.warn(
            { threadId: options.threadId, err: errorMessage(error) },
            "onSuspended listener failed",
          );
        }
      }
    }
    record.log.retire();
    this.retained.add(options.threadId, retainedSize(result));
  }
}

/** What a finished run keeps, estimated: its reply (also in its event log) and its new messages. */
function retainedSize(result: TurnResult): number {
  let size = result.text.length + result.reasoning.length;
  for (const m of result.newMessages) {
    if (m.role === "tool") size += JSON.stringify(m.result ?? null)?.length ?? 0;
    else size += m.content.length + (m.role === "assistant" ? (m.reasoning?.length ?? 0) : 0);
  }
  return size;
}

function toPending(run: SuspendedRun): PendingApproval {
  return {
    threadId: run.options.threadId,
    toolCallId: run.pendingCall.id,
    toolName: run.pendingCall.name,
    arguments: run.pendingCall.arguments,
    allowedDecisions: [...DECISIONS],
    createdAt: run.createdAt,
  };
}
