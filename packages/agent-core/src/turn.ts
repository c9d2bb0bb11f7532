import type {
  LanguageModelV4,
  LanguageModelV4FunctionTool,
  LanguageModelV4StreamPart,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from "@ai-sdk/provider";
import { chatFinishReason } from "./chunk-factory.js";
import type { ChunkDelta, ToolCallDelta } from "./chunk.js";
import type { AgentDefinition } from "./define.js";
import type { RunEventLog } from "./event-log.js";
import { randomId } from "./ids.js";
import type { Message, ReasoningMetadata, ReasoningPart, ToolCall } from "./messages.js";
import type { Memory } from "./memory.js";
import { type AttemptScope, callModel, type ModelAttempt, type ModelCandidate } from "./model-call.js";
import { admitModelCall, recordModelCall } from "./model-meter.js";
import type { FinishReason, TurnError, Usage } from "./model-error.js";
import { classifyModelError, ModelCallError } from "./model-errors.js";
import { DEMO_STEP_OPTION } from "./models/demo-model.js";
import type { ResolvedModel } from "./models/resolved-model.js";
import { callSettings, type ModelSettings, mergeProviderOptions } from "./models/settings.js";
import { addUsage, toFinishReason, toUsage } from "./models/usage.js";
import { toPrompt } from "./prompt.js";
import { type BlobReader, PromptFiles, type RefusedFiles } from "./prompt-files.js";
import { modelFileInputs } from "./model-inputs.js";
import { type TranscribeAttachment, transcribeMessages } from "./transcription.js";
import { isSummary } from "./prompt-window.js";
import type { Decision, RunOptions, RunStore, SuspendedRun } from "./run-store.js";
import { type AnyTool, callNeedsApproval, parseToolInput } from "./tool-input.js";
import { captureContent, type TraceSpan, toolCallSpan } from "./trace.js";

type ModelCallResult =
  | { kind: "ok"; toolCalls: ToolCall[] }
  | { kind: "aborted" }
  | { kind: "error"; error: TurnError };

/**
 * A provider's 400 about a file part (OpenAI "image_url is only supported by certain models",
 * `invalid_image_format`, "Invalid file data"; Anthropic "...image.source.base64: image exceeds 5 MB";
 * Gemini "inline_data.mime_type", "Request payload size exceeds the limit").
 */
const ABOUT_FILES = /image|file|document|pdf|audio|inline_?data|mime|media|payload size/i;

/** On a context overflow with a summarizer: the most recent messages kept as they are. */
const OVERFLOW_KEEP_RECENT = 2;

/** What one model call has produced so far, across its attempts (only one ever streams). */
class CallOutput {
  text = "";
  reasoning = "";
  // One entry per reasoning block, with the provider's metadata (Anthropic's thinking
  // signature arrives on a reasoning-delta with an empty delta at the end of its block).
  readonly reasoningParts: ReasoningPart[] = [];
  readonly openReasoning = new Map<string, ReasoningPart>();
  reasoningMetadata = false;
  readonly toolCalls: ToolCall[] = [];
  readonly toolInputs = new Map<string, { index: number; argLength: number }>();
  finishReason: FinishReason | undefined;
  /** Something reached the client: no retry, no fallback from here on. */
  streamed = false;
  /** What the provider reported for the current attempt (the cost ledger records each attempt). */
  attemptUsage: Usage = {};
  constructor(
    readonly step: number,
    readonly chunkId: string,
  ) {}

  /** Before another attempt: what a failed one gathered without sending (a reasoning block's start, say) goes. */
  restart(): void {
    if (this.streamed) return;
    this.reasoningParts.length = 0;
    this.openReasoning.clear();
    this.reasoningMetadata = false;
    this.toolInputs.clear();
    this.finishReason = undefined;
  }
}

export const CANCELLED_RESULT = "Cancelled: the run was stopped before this tool call ran.";
export const INTERRUPTED_RESULT =
  "Interrupted: the service restarted while this tool call was running; it may or may not have completed, and it was not run again.";

/** Saves the turn's progress around a tool call (continuations of approved runs only). */
export type TurnCheckpoint = (
  phase: "executing" | "continuing",
  call: ToolCall,
  remaining: ToolCall[],
) => Promise<void>;
export const DEFAULT_MAX_STEPS = 16;

export type TurnOutcome =
  | { status: "completed" }
  | { status: "cancelled" }
  | { status: "failed"; error: TurnError }
  | { status: "suspended"; suspended: SuspendedRun };

export interface TurnDeps {
  agent: AgentDefinition;
  model: LanguageModelV4;
  /** The provider's name for the model call span (default: the model's own `provider`). */
  provider?: string;
  /** Sent with every model call (`maxRetries`/`timeoutMs` are for the model-call wrapper). */
  settings?: ModelSettings;
  /** Tried in order when the model's retries are exhausted (the model-call wrapper). */
  fallbacks?: ResolvedModel[];
  /** The key's environment variable, named in an `auth` failure. */
  apiKeyEnvVar?: string;
  /** Each model attempt's outcome, once decided (logs, metrics). */
  onModelAttempt?: (attempt: ModelAttempt) => void;
  /** Compacted on a context overflow when it can summarize. */
  memory?: Memory;
  /** A call's provider warnings (the RunManager logs each model's once). */
  onWarnings?: (model: LanguageModelV4, warnings: SharedV4Warning[]) => void;
  modelTools: LanguageModelV4FunctionTool[];
  tools: Map<string, AnyTool>;
  runStore: RunStore;
  log: RunEventLog;
  /** Stored files of user messages, read when a prompt carries them as file parts. */
  blobs?: BlobReader;
  /** Gives the new turn's audio files their transcripts before its first model call. */
  transcribe?: TranscribeAttachment;
  /** Files each model refused, shared by the manager's turns. */
  refusedFiles?: RefusedFiles;
}

/** The decision to apply to the first pending call when a suspended turn continues. */
export type AppliedDecision = Decision & { parsedEdit?: unknown };

/**
 * The state of one turn (it survives a suspension as a SuspendedRun). `run` is the loop: a
 * checkpoint before every model call and every tool call handles cancel and steer.
 */
export class Turn {
  readonly abort = new AbortController();
  cancelled = false;
  /** The bytes of stored files this turn's prompts carry, read once per turn. */
  private readonly files: PromptFiles;
  readonly steers: string[];
  readonly turnMessages: Message[];
  private step: number;
  private toolIndex: number;
  /** What memory held when the turn began; set before `run` (loaded asynchronously). */
  history: Message[] = [];
  /** Tokens of every model call of this turn so far (a continuation starts from the saved sum). */
  usage: Usage | undefined;
  /** Why the latest model call ended. */
  finishReason: FinishReason | undefined;
  /**
   * Set for a continuation: progress is saved before and after every tool call, so a crash never
   * runs a tool twice and never loses the turn (the RunStore row is the checkpoint).
   */
  checkpoint: TurnCheckpoint | undefined;

  constructor(
    private readonly deps: TurnDeps,
    readonly options: RunOptions,
    turnMessages: Message[],
    steers: string[] = [],
    usage?: Usage,
  ) {
    this.turnMessages = turnMessages;
    this.steers = steers;
    this.usage = usage;
    this.files = new PromptFiles(deps.blobs, deps.refusedFiles);
    const assistants = turnMessages.filter((m) => m.role === "assistant");
    this.step = assistants.length;
    this.toolIndex = assistants.reduce(
      (n, m) => n + (m.role === "assistant" ? (m.toolCalls?.length ?? 0) : 0),
      0,
    );
  }

  cancel(): void {
    this.cancelled = true;
    this.abort.abort(new DOMException("The run was cancelled.", "AbortError"));
  }

  /** A call that was running when the process died: it gets a result saying so and is not run again. */
  recordInterrupted(call: ToolCall): void {
    this.pushResult(call, INTERRUPTED_RESULT, true);
  }

  async run(pending?: { calls: ToolCall[]; decision?: AppliedDecision }): Promise<TurnOutcome> {
    try {
      if (pending) {
        const outcome = await this.executeCalls(pending.calls, pending.decision);
        if (outcome) return outcome;
      } else if (this.deps.transcribe) {
        // Before the first model call: memory keeps the transcript with the message.
        const heard = await transcribeMessages(
          this.turnMessages,
          this.deps.transcribe,
          this.options.origin,
          this.abort.signal,
        );
        this.turnMessages.splice(0, heard.length, ...heard);
      }
      const maxSteps = this.deps.agent.maxSteps ?? DEFAULT_MAX_STEPS;
      while (true) {
        // Checkpoint before a model call: cancel ends the turn, queued steer text is spliced in.
        if (this.cancelled) return { status: "cancelled" };
        this.spliceSteers();
        if (this.step >= maxSteps) {
          return {
            status: "failed",
            error: { code: "max_steps", message: `the turn reached maxSteps (${maxSteps}) model calls` },
          };
        }
        // A budget spent (the meter says so) stops the turn before the call, with nothing half-done.
        const refused = await admitModelCall("turn");
        if (refused) return { status: "failed", error: refused };
        const call = await this.callModel();
        if (call.kind === "aborted") return { status: "cancelled" };
        if (call.kind === "error") return { status: "failed", error: call.error };
        if (call.toolCalls.length === 0) {
          // A final answer with steer text still queued: answer that too, inside this turn.
          if (this.steers.length > 0) continue;
          return { status: "completed" };
        }
        const outcome = await this.executeCalls(call.toolCalls);
        if (outcome) return outcome;
      }
    } catch (error) {
      this.closeOrphans("Failed: the run stopped before this tool call ran.");
      return { status: "failed", error: { code: "internal_error", message: errorMessage(error) } };
    }
  }

  private spliceSteers(): void {
    for (const text of this.steers.splice(0)) this.turnMessages.push({ role: "user", content: text });
  }

  private emit(chunkId: string, delta: ChunkDelta, finish: string | null = null): void {
    this.deps.log.pushDelta(chunkId, this.deps.model.modelId, delta, finish);
  }

  /**
   * One model call: the agent's model with its retries, then its fallbacks (model-call.ts), each
   * attempt in its own `chat <model>` span. A `context_length` refusal before any output shrinks
   * the history (shrinkHistory) and the call is made once more.
   */
  private async callModel(): Promise<ModelCallResult> {
    const call = new CallOutput(this.step++, randomId("chatcmpl"));
    let outcome = await this.tryModel(call);
    if (
      outcome.kind === "error" &&
      outcome.error.code === "context_length" &&
      !call.streamed &&
      (await this.shrinkHistory())
    ) {
      // Still too long: the classifier's message says what to do (start a new one or clear it).
      outcome = await this.tryModel(call);
    }
    if (
      outcome.kind === "error" &&
      outcome.error.code === "bad_request" &&
      !call.streamed &&
      this.files.last &&
      ABOUT_FILES.test(`${outcome.error.detail ?? ""} ${outcome.error.message}`)
    ) {
      // The provider refused a request that carried files (a picture or a type it does not take):
      // once more with notes, and that model gets those files as notes from now on, so one file
      // does not fail every later turn of the conversation.
      this.files.withhold();
      outcome = await this.tryModel(call);
    }
    const { text, reasoning, toolCalls } = call;
    // Whatever arrived is kept, even when the call was cut short.
    if (text || reasoning || toolCalls.length > 0) {
      const message: Message = { role: "assistant", content: text };
      if (reasoning) message.reasoning = reasoning;
      // Only when a provider needs something back: parts without metadata add nothing to `reasoning`.
      if (call.reasoningMetadata) message.reasoningParts = call.reasoningParts;
      if (toolCalls.length > 0) message.toolCalls = toolCalls;
      // A failed call's partial reply: the next prompt says it was cut off.
      if (outcome.kind === "error") message.interrupted = true;
      this.turnMessages.push(message);
    }
    if (outcome.kind === "aborted") {
      this.finishReason = "unknown";
      this.closeOrphans(CANCELLED_RESULT);
      return outcome;
    }
    if (outcome.kind === "error") {
      this.finishReason = "error";
      this.closeOrphans("Failed: the model call failed before this tool call ran.");
      return outcome;
    }
    this.finishReason = toolCalls.length > 0 ? "tool-calls" : (call.finishReason ?? "unknown");
    this.emit(call.chunkId, {}, chatFinishReason(this.finishReason));
    return { kind: "ok", toolCalls };
  }

  private async tryModel(call: CallOutput): Promise<ModelCallResult> {
    const primary: ModelCandidate = {
      model: this.deps.model,
      // "openai", "anthropic" are the conventions' own values; "demo", "openai-compatible", ...
      provider: this.deps.provider ?? this.deps.model.provider,
      settings: this.deps.settings,
      apiKeyEnvVar: this.deps.apiKeyEnvVar,
      fallbacks: this.deps.fallbacks,
    };
    try {
      await callModel({
        primary,
        signal: this.abort.signal,
        attempt: (scope) => this.streamAttempt(scope, call),
        streamed: () => call.streamed,
        onAttempt: (attempt) => {
          recordModelCall("turn", {
            provider: attempt.provider,
            modelId: attempt.modelId,
            outcome: String(attempt.outcome),
            usage: call.attemptUsage,
          });
          this.deps.onModelAttempt?.(attempt);
        },
      });
      return { kind: "ok", toolCalls: call.toolCalls };
    } catch (error) {
      const failure = error instanceof ModelCallError ? error : classifyModelError(error);
      if (failure.error.code === "cancelled") return { kind: "aborted" };
      return { kind: "error", error: failure.error };
    }
  }

  /**
   * Leaves room after a `context_length` refusal: compacts the conversation when memory can
   * summarize (stored, so later turns fit too), else leaves the stored history out of this turn's
   * prompt (its summary stays). False when there was nothing to leave out.
   */
  private async shrinkHistory(): Promise<boolean> {
    const memory = this.deps.memory;
    const scope = { userId: this.options.userId, conversationId: this.options.conversationId };
    if (memory?.canSummarize) {
      try {
        const result = await memory.summarize(scope, { keepRecent: OVERFLOW_KEEP_RECENT });
        if (result.compacted) {
          this.history = await (memory.loadPrompt?.(scope) ?? memory.load(scope));
          return true;
        }
      } catch {
        // The summary itself failed (its model refused the transcript, say): cut instead.
      }
    }
    const kept = this.history.filter((m) => isSummary(m));
    if (kept.length === this.history.length) return false;
    this.history = kept;
    return true;
  }

  /** One attempt: opens the stream and reads it into `call`; throws what failed. */
  private async streamAttempt(scope: AttemptScope, call: CallOutput): Promise<void> {
    const { signal, span, model } = scope;
    call.restart();
    call.attemptUsage = {};
    const emit = (delta: ChunkDelta) => {
      this.emit(call.chunkId, call.streamed ? delta : { role: "assistant", ...delta });
      call.streamed = true;
    };
    const reasoningPart = (id: string, metadata: SharedV4ProviderMetadata | undefined) => {
      let entry = call.openReasoning.get(id);
      if (!entry) {
        entry = { text: "" };
        call.openReasoning.set(id, entry);
        call.reasoningParts.push(entry);
      }
      if (metadata) {
        entry.metadata = mergeMetadata(entry.metadata, metadata);
        call.reasoningMetadata = true;
      }
      return entry;
    };
    const toolCalls = call.toolCalls;
    const streamed = call.toolInputs;
    let failure: unknown;

    const onPart = (part: LanguageModelV4StreamPart) => {
      switch (part.type) {
        case "text-delta":
          if (!part.delta) return;
          call.text += part.delta;
          emit({ content: part.delta });
          return;
        case "reasoning-start":
          reasoningPart(part.id, part.providerMetadata);
          return;
        case "reasoning-delta": {
          const entry = reasoningPart(part.id, part.providerMetadata);
          if (!part.delta) return;
          entry.text += part.delta;
          call.reasoning += part.delta;
          emit({ reasoning: part.delta });
          return;
        }
        case "reasoning-end":
          reasoningPart(part.id, part.providerMetadata);
          // A provider that reuses ids per block starts a new part after the end.
          call.openReasoning.delete(part.id);
          return;
        case "tool-input-start": {
          const index = this.toolIndex++;
          streamed.set(part.id, { index, argLength: 0 });
          emit({
            tool_calls: [
              { index, id: part.id, type: "function", function: { name: part.toolName, arguments: "" } },
            ],
          });
          return;
        }
        case "tool-input-delta": {
          const entry = streamed.get(part.id);
          if (!entry || !part.delta) return;
          entry.argLength += part.delta.length;
          emit({ tool_calls: [{ index: entry.index, function: { arguments: part.delta } }] });
          return;
        }
        case "tool-call": {
          if (part.providerExecuted) return;
          let entry = streamed.get(part.toolCallId);
          if (!entry) {
            entry = { index: this.toolIndex++, argLength: 0 };
            streamed.set(part.toolCallId, entry);
            const fragment: ToolCallDelta = {
              index: entry.index,
              id: part.toolCallId,
              type: "function",
              function: { name: part.toolName, arguments: part.input },
            };
            entry.argLength = part.input.length;
            emit({ tool_calls: [fragment] });
          } else if (entry.argLength === 0 && part.input) {
            entry.argLength = part.input.length;
            emit({ tool_calls: [{ index: entry.index, function: { arguments: part.input } }] });
          }
          toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: parseArguments(part.input) });
          return;
        }
        case "finish": {
          call.finishReason = toFinishReason(part.finishReason);
          const usage = toUsage(part.usage);
          this.usage = addUsage(this.usage, usage);
          call.attemptUsage = usage;
          span.setAttribute("gen_ai.response.finish_reasons", [call.finishReason]);
          if (usage.inputTokens !== undefined)
            span.setAttribute("gen_ai.usage.input_tokens", usage.inputTokens);
          if (usage.outputTokens !== undefined)
            span.setAttribute("gen_ai.usage.output_tokens", usage.outputTokens);
          return;
        }
        case "stream-start":
          if (part.warnings.length > 0) this.deps.onWarnings?.(model, part.warnings);
          return;
        case "error":
          failure ??= part.error;
          return;
        default:
          return;
      }
    };

    if (signal.aborted) return;
    let onAbortWait: (() => void) | undefined;
    const abortWait = new Promise<"abort">((resolve) => {
      onAbortWait = () => resolve("abort");
      signal.addEventListener("abort", onAbortWait, { once: true });
    });
    try {
      const messages = [...this.history, ...this.turnMessages];
      const inputs = modelFileInputs(
        scope.candidate.provider,
        model.modelId,
        scope.candidate.settings?.fileInputs,
      );
      const prompt = toPrompt(
        this.deps.agent.instructions,
        messages,
        await this.files.picker(messages, inputs, model.modelId),
      );
      if (captureContent()) span.setAttribute("gen_ai.input.messages", JSON.stringify(prompt));
      const settings = callSettings(scope.candidate.settings);
      const started = model.doStream({
        ...settings,
        prompt,
        tools: this.deps.modelTools.length > 0 ? this.deps.modelTools : undefined,
        abortSignal: signal,
        providerOptions: mergeProviderOptions(settings.providerOptions, {
          [DEMO_STEP_OPTION]: { step: call.step },
        }),
      });
      const opened = await Promise.race([started, abortWait]);
      // Only the opening waits on it; the read loop below has its own listener.
      signal.removeEventListener("abort", onAbortWait as () => void);
      if (opened === "abort") {
        Promise.resolve(started).then(
          (r) => r.stream.cancel().catch(() => {}),
          () => {},
        );
        return;
      }
      const reader = opened.stream.getReader();
      // Cancelling the reader on abort (cancel or this attempt's timeout) settles a pending read
      // at once (done), so the loop needs no Promise.race per part.
      const onAbort = () => {
        reader.cancel().catch(() => {});
      };
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        while (!failure) {
          const next = await reader.read();
          if (signal.aborted || next.done) break;
          scope.alive();
          onPart(next.value);
        }
      } finally {
        signal.removeEventListener("abort", onAbort);
        reader.cancel().catch(() => {});
      }
    } finally {
      signal.removeEventListener("abort", onAbortWait as () => void);
      if (captureContent())
        span.setAttribute(
          "gen_ai.output.messages",
          JSON.stringify([{ role: "assistant", content: call.text, toolCalls }]),
        );
    }
    // The wrapper classifies it (an error part's payload or a thrown error alike).
    if (failure) throw failure;
  }

  /** Runs calls in order; returns an outcome when the turn must stop (cancel or suspension). */
  private async executeCalls(
    calls: ToolCall[],
    decision?: AppliedDecision,
  ): Promise<TurnOutcome | undefined> {
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as ToolCall;
      const rest = calls.slice(i + 1);
      const outcome = await this.executeOne(call, rest, i === 0 ? decision : undefined);
      if (outcome) return outcome;
      await this.checkpoint?.("continuing", call, rest);
    }
    return undefined;
  }

  /** One call: a result pushed, or an outcome when the turn must stop. */
  private async executeOne(
    call: ToolCall,
    rest: ToolCall[],
    decision: AppliedDecision | undefined,
  ): Promise<TurnOutcome | undefined> {
    // Checkpoint before a tool call. Steer text waits for the next model call: a user message
    // between a tool call and its result would make the history invalid for providers.
    if (this.cancelled) {
      this.closeOrphans(CANCELLED_RESULT);
      return { status: "cancelled" };
    }
    const tool = this.deps.tools.get(call.name);
    if (!tool) {
      this.pushResult(
        call,
        `Unknown tool "${call.name}". Available tools: ${[...this.deps.tools.keys()].join(", ") || "none"}.`,
        true,
      );
      return undefined;
    }
    if (decision) {
      if (decision.decision === "reject") {
        const reason = decision.reason ? ` Reason: ${decision.reason}` : "";
        this.pushResult(
          call,
          `Rejected: ${decision.decidedBy} did not approve this tool call.${reason}`,
          true,
          decision,
        );
        return undefined;
      }
      const input =
        decision.decision === "edit"
          ? { ok: true as const, value: decision.parsedEdit }
          : parseToolInput(tool, call.arguments);
      if (!input.ok) {
        this.pushResult(call, input.message, true, decision);
        return undefined;
      }
      await this.checkpoint?.("executing", call, rest);
      await this.execute(tool, call, input.value, decision);
      return undefined;
    }
    const input = parseToolInput(tool, call.arguments);
    if (!input.ok) {
      this.pushResult(call, input.message, true);
      return undefined;
    }
    if (callNeedsApproval(tool, input.value)) {
      // The wait for a person is an event on the call's span; the approved call gets its own span.
      const traced = toolCallSpan(call.name, call.id);
      traced.span.addEvent("approval requested");
      traced.span.setAttribute("agentsvc.tool.outcome", "awaiting_approval");
      traced.span.end();
      return { status: "suspended", suspended: await this.suspend(call, rest) };
    }
    await this.checkpoint?.("executing", call, rest);
    await this.execute(tool, call, input.value);
    return undefined;
  }

  private async execute(tool: AnyTool, call: ToolCall, input: unknown, decision?: Decision): Promise<void> {
    const traced = toolCallSpan(call.name, call.id);
    if (decision)
      traced.span.addEvent("approval decided", { "agentsvc.approval.decision": decision.decision });
    try {
      await traced.run(() => this.executeTraced(tool, call, input, traced.span, decision));
    } finally {
      traced.span.end();
    }
  }

  private async executeTraced(
    tool: AnyTool,
    call: ToolCall,
    input: unknown,
    span: TraceSpan,
    decision?: Decision,
  ): Promise<void> {
    try {
      const ctx = {
        threadId: this.options.threadId,
        userId: this.options.userId,
        conversationId: this.options.conversationId,
        ...(this.options.origin ? { origin: this.options.origin } : {}),
        signal: this.abort.signal,
        ...(decision && decision.decision !== "reject"
          ? {
              approval: {
                decision: decision.decision,
                decidedBy: decision.decidedBy,
                reason: decision.reason,
              },
            }
          : {}),
      };
      const result = await tool.execute(input, ctx);
      this.pushResult(call, result === undefined ? null : result, false, decision);
    } catch (error) {
      const message = this.cancelled
        ? CANCELLED_RESULT
        : `Tool "${call.name}" failed: ${errorMessage(error)}`;
      span.fail(this.cancelled ? "cancelled" : "tool_error", message);
      this.pushResult(call, message, true, decision);
    }
  }

  /** A decided call's result keeps the decision, so a transcript can show it where it happened. */
  private pushResult(call: ToolCall, result: unknown, isError: boolean, decision?: Decision): void {
    const message: Message = { role: "tool", toolCallId: call.id, toolName: call.name, result };
    if (isError) message.isError = true;
    if (decision) message.decision = { decision: decision.decision, decidedBy: decision.decidedBy };
    this.turnMessages.push(message);
  }

  /** Gives every tool call of the turn that has no result a synthetic one, so history stays valid. */
  closeOrphans(text: string): void {
    const answered = new Set(this.turnMessages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
    const orphans: ToolCall[] = [];
    for (const m of this.turnMessages) {
      if (m.role !== "assistant") continue;
      for (const call of m.toolCalls ?? []) if (!answered.has(call.id)) orphans.push(call);
    }
    // Results must follow their assistant message directly; orphans only exist at the tail.
    for (const call of orphans) this.pushResult(call, text, true);
  }

  private async suspend(pendingCall: ToolCall, remainingCalls: ToolCall[]): Promise<SuspendedRun> {
    const suspended: SuspendedRun = {
      options: this.options,
      agentName: this.deps.agent.name,
      turnMessages: [...this.turnMessages],
      pendingCall,
      remainingCalls,
      queuedSteers: [...this.steers],
      createdAt: Date.now(),
      ...(this.usage ? { usage: this.usage } : {}),
      // The middleware_stop chunk pushed next gets this seq.
      lastSeq: this.deps.log.lastSeq + 1,
    };
    // Saved before the stop chunk goes out, so a client reacting to it finds the pending call.
    await this.deps.runStore.save(suspended);
    this.deps.log.pushDelta(randomId("chatcmpl"), this.deps.model.modelId, {}, null, "middleware_stop");
    return suspended;
  }
}

/** Merges metadata per provider key (a later event may add a field, e.g. a signature). */
function mergeMetadata(
  current: ReasoningMetadata | undefined,
  added: SharedV4ProviderMetadata,
): ReasoningMetadata {
  const merged: ReasoningMetadata = { ...current };
  for (const [provider, values] of Object.entries(added))
    merged[provider] = { ...merged[provider], ...values };
  return merged;
}

function parseArguments(input: string): unknown {
  if (input.trim() === "") return {};
  try {
    return JSON.parse(input);
  } catch {
    // Kept raw: parseToolInput turns it into a tool error the model sees.
    return input;
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
