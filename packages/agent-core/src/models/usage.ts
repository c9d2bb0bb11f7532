import type { LanguageModelV4FinishReason, LanguageModelV4Usage } from "@ai-sdk/provider";
import type { FinishReason, Usage } from "../model-error.js";

/**
 * One call's usage in our flat shape (the AI SDK's v4 usage nests input and output details). The
 * providers normalise `inputTokens.total` to the whole prompt, cache reads and writes included:
 * @ai-sdk/anthropic adds `cache_read_input_tokens` and `cache_creation_input_tokens` to Anthropic's
 * `input_tokens` (which leaves them out), @ai-sdk/openai takes `prompt_tokens` (which holds
 * `cached_tokens`) as it is. So `cachedInputTokens` and `cacheWriteInputTokens` are parts of
 * `inputTokens`, never added to it.
 */
export function toUsage(usage: LanguageModelV4Usage | undefined): Usage {
  const out: Usage = {};
  if (!usage) return out;
  const input = usage.inputTokens?.total;
  const output = usage.outputTokens?.total;
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (usage.outputTokens?.reasoning !== undefined) out.reasoningTokens = usage.outputTokens.reasoning;
  if (usage.inputTokens?.cacheRead !== undefined) out.cachedInputTokens = usage.inputTokens.cacheRead;
  if (usage.inputTokens?.cacheWrite !== undefined) out.cacheWriteInputTokens = usage.inputTokens.cacheWrite;
  if (input !== undefined || output !== undefined) out.totalTokens = (input ?? 0) + (output ?? 0);
  return out;
}

const USAGE_KEYS = [
  "inputTokens",
  "outputTokens",
  "reasoningTokens",
  "cachedInputTokens",
  "cacheWriteInputTokens",
  "totalTokens",
] as const;

/** Sums two usages; a count neither reported stays absent (not 0: "unknown" is not "none"). */
export function addUsage(a: Usage | undefined, b: Usage): Usage {
  const out: Usage = { ...a };
  for (const key of USAGE_KEYS) {
    const value = b[key];
    if (value !== undefined) out[key] = (out[key] ?? 0) + value;
  }
  return out;
}

/**
 * The unified finish reason of a v4 `finish` part. `interrupted` (the provider's stream ended
 * without a completion signal) is reported as `unknown`: nothing said why it ended.
 */
export function toFinishReason(reason: LanguageModelV4FinishReason | undefined): FinishReason {
  const unified = reason?.unified;
  if (unified === undefined || unified === "interrupted") return "unknown";
  return unified;
}
