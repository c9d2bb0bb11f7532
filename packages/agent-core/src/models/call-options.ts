import type { SharedV4ProviderOptions } from "@ai-sdk/provider";
import type { ModelSpec } from "../define.js";
import { AgentsvcError } from "../errors.js";

/** Anthropic rejects a smaller extended-thinking budget. */
const MIN_THINKING_BUDGET_TOKENS = 1024;

/**
 * Provider options every model call of this spec carries (besides the run loop's own), or
 * undefined. Throws `invalid_model` for a bad `thinkingBudgetTokens`, so createModel fails at start-up.
 */
export function specProviderOptions(spec: ModelSpec): SharedV4ProviderOptions | undefined {
  if (spec.provider !== "anthropic" || spec.thinkingBudgetTokens === undefined) return undefined;
  const budget: unknown = spec.thinkingBudgetTokens;
  if (typeof budget !== "number" || !Number.isInteger(budget) || budget < MIN_THINKING_BUDGET_TOKENS) {
    throw new AgentsvcError(
      "invalid_model",
      `model.thinkingBudgetTokens: expected an integer of at least ${MIN_THINKING_BUDGET_TOKENS} (got ${JSON.stringify(budget)})`,
      500,
    );
  }
  // @ai-sdk/anthropic turns this into `thinking: { type: "enabled", budget_tokens }` and adds the
  // budget to max_tokens (the API requires budget < max_tokens).
  return { anthropic: { thinking: { type: "enabled", budgetTokens: budget } } };
}
