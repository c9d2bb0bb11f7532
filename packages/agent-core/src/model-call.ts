// One model call of a turn as the run loop sees it: the agent's model, tried again on retryable
// failures, then each fallback model in order, every attempt with its own timeout and its own
// `chat <model>` span. Once anything of an attempt has reached the client (text, reasoning, a tool
// call), nothing is tried again: the failure is the call's.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelErrorCode, TurnError } from "./model-error.js";
import type { FileInput } from "./model-inputs.js";
import { classifyModelError, ModelCallError } from "./model-errors.js";
import { fallsBack } from "./model-fallback.js";
import { type RetryPolicy, retryPolicy, withRetries } from "./model-retry.js";
import { modelCallSpan, type TraceSpan } from "./trace.js";

/** Per attempt: the longest wait for the response head, the first stream part, or the next one. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** A model the call may use (`ResolvedModel` fits): its own retries and timeout, and its fallbacks. */
export interface ModelCandidate {
  model: LanguageModelV4;
  /** For spans and logs ("openai", "anthropic", ...). */
  provider: string;
  settings?: { maxRetries?: number; timeoutMs?: number; fileInputs?: FileInput[] };
  /** Named in an `auth` failure. */
  apiKeyEnvVar?: string;
  fallbacks?: ModelCandidate[];
}

/** What each attempt ended with: for logs and metrics (counted by outcome). */
export interface ModelAttempt {
  provider: string;
  modelId: string;
  /** 1-based, per model. */
  attempt: number;
  /** 0: the agent's model; i: its i-th fallback. */
  fallback: number;
  outcome: "ok" | ModelErrorCode | (string & {});
  error?: TurnError;
  /** Set when another attempt of the same model follows after this pause. */
  retryInMs?: number;
  /** Set when the next fallback model takes over. */
  fallingBackTo?: string;
}

/** What an attempt's body gets. */
export interface AttemptScope {
  candidate: ModelCandidate;
  model: LanguageModelV4;
  attempt: number;
  /** Aborted on cancel or on this attempt's timeout: hand it to `doStream`. */
  signal: AbortSignal;
  span: TraceSpan;
  /** Restarts the timeout: call it for every stream part. */
  alive(): void;
}

export interface ModelCallOptions<T> {
  primary: ModelCandidate;
  /** The run's signal (cancel). */
  signal: AbortSignal;
  /** One attempt: opens the stream and reads it; throws what failed (an error part's error too). */
  attempt: (scope: AttemptScope) => Promise<T>;
  /** True once the attempt body has sent anything to the client. */
  streamed: () => boolean;
  onAttempt?: (attempt: ModelAttempt) => void;
  policy?: Partial<RetryPolicy>;
}

/** Runs the call; throws the final ModelCallError (`cancelled` when the run was cancelled). */
export async function callModel<T>(
  options: ModelCallOptions<T>,
): Promise<{ value: T; candidate: ModelCandidate }> {
  const candidates = [options.primary, ...(options.primary.fallbacks ?? [])];
  // Every attempt is told once, when what follows it is known (a retry, a fallback, or nothing).
  const state: CallState = {};
  const tell = (extra: Partial<ModelAttempt> = {}) => {
    if (state.failed) options.onAttempt?.({ ...state.failed, ...extra });
    state.failed = undefined;
  };
  let last: ModelCallError | undefined;
  for (const [index, candidate] of candidates.entries()) {
    try {
      return { value: await attemptsOf(candidate, index, options, state, tell), candidate };
    } catch (error) {
      last = finalError(error, options.signal);
      const next = candidates[index + 1];
      if (!next || options.streamed() || !fallsBack(last.error)) {
        tell();
        throw last;
      }
      tell({ fallingBackTo: next.model.modelId });
    }
  }
  throw last ?? new ModelCallError({ code: "model_error", message: "No model to call." }, false);
}

interface CallState {
  /** The attempt that failed last, not yet told. */
  failed?: ModelAttempt;
}

function finalError(error: unknown, signal: AbortSignal): ModelCallError {
  if (error instanceof ModelCallError) return error;
  // A cancel during a backoff pause: the AI SDK's delay throws the signal's AbortError.
  return classifyModelError(error, { cancelled: signal.aborted });
}

/** The candidate's attempts: the first and its retries. */
function attemptsOf<T>(
  candidate: ModelCandidate,
  fallback: number,
  options: ModelCallOptions<T>,
  state: CallState,
  tell: (extra?: Partial<ModelAttempt>) => void,
): Promise<T> {
  const policy = retryPolicy({
    ...options.policy,
    ...(candidate.settings?.maxRetries !== undefined ? { maxRetries: candidate.settings.maxRetries } : {}),
  });
  let attempt = 0;
  return withRetries(
    () => oneAttempt(candidate, fallback, ++attempt, options, state),
    policy,
    options.signal,
    (_error, delayMs) => tell({ retryInMs: delayMs }),
  );
}

async function oneAttempt<T>(
  candidate: ModelCandidate,
  fallback: number,
  attempt: number,
  options: ModelCallOptions<T>,
  state: CallState,
): Promise<T> {
  const timeoutMs = candidate.settings?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = new AbortController();
  let timedOut = false;
  let handle: ReturnType<typeof setTimeout> | undefined;
  // A part only notes its time (no timer per token); the one timer re-arms for what is left.
  let lastPart = performance.now();
  const alive = () => {
    lastPart = performance.now();
  };
  const check = () => {
    const left = timeoutMs - (performance.now() - lastPart);
    if (left > 0) {
      handle = setTimeout(check, left);
      return;
    }
    timedOut = true;
    timer.abort(new DOMException(`no stream part within ${timeoutMs} ms`, "TimeoutError"));
  };
  // The attempt's signal is `timer`'s own, aborted by the run's signal through one listener (removed
  // when the attempt ends), not AbortSignal.any: a composite signal costs ~40 us to make and reap (weak
  // references) and ~200 ns per `aborted` read, which the stream loop does for every part.
  const signal = timer.signal;
  const cancel = () => timer.abort(options.signal.reason);
  if (options.signal.aborted) cancel();
  else options.signal.addEventListener("abort", cancel, { once: true });
  const traced = modelCallSpan(candidate.provider, candidate.model.modelId);
  traced.span.setAttribute("agentsvc.model.attempt", attempt);
  if (fallback > 0) traced.span.setAttribute("agentsvc.model.fallback", fallback);
  const facts = { provider: candidate.provider, modelId: candidate.model.modelId, attempt, fallback };
  try {
    if (options.signal.aborted) throw classifyModelError(undefined, { cancelled: true });
    handle = setTimeout(check, timeoutMs);
    const value = await traced.run(() =>
      options.attempt({ candidate, model: candidate.model, attempt, signal, span: traced.span, alive }),
    );
    // A stream that ended quietly because its reader was cancelled: still a cancel or a timeout.
    if (options.signal.aborted) throw classifyModelError(undefined, { cancelled: true });
    if (timedOut) throw classifyModelError(undefined, { timedOutAfterMs: timeoutMs });
    options.onAttempt?.({ ...facts, outcome: "ok" });
    return value;
  } catch (error) {
    let failure = classifyModelError(error, {
      envVar: candidate.apiKeyEnvVar,
      cancelled: options.signal.aborted,
      ...(timedOut ? { timedOutAfterMs: timeoutMs } : {}),
    });
    // What the client already has cannot be taken back: no second attempt.
    if (failure.retryable && options.streamed())
      failure = new ModelCallError(failure.error, false, { cause: error });
    traced.span.fail(failure.error.code, failure.error.message);
    state.failed = { ...facts, outcome: failure.error.code, error: failure.error };
    throw failure;
  } finally {
    clearTimeout(handle);
    options.signal.removeEventListener("abort", cancel);
    traced.span.end();
  }
}
