// The spend series: tokens and cost by gateway and model (the cost ledger's, priced at record
// time), and budget warnings and refusals by scope kind and period. Labels stay bounded: declared
// gateway names (`none` for the chat page and agent route), configured models, four scope kinds.
import type { Registry } from "prom-client";
import type { SpendObserver } from "./spend-meter.js";

type PromClient = typeof import("prom-client");

export function spendMetrics(prom: PromClient, registry: Registry): SpendObserver {
  const tokens = new prom.Counter({
    name: "agentsvc_spend_tokens_total",
    help: "Tokens of every model call in the cost ledger, by gateway (none: chat page and agent route), model (provider/model) and type (input: the whole prompt; cached_input and cache_write_input: its parts read from and written to the provider's prompt cache; output; reasoning)",
    labelNames: ["gateway", "model", "type"] as const,
    registers: [registry],
  });
  const cost = new prom.Counter({
    name: "agentsvc_spend_cost_total",
    help: "Cost of every model call at the configured prices (the prices' currency), by gateway and model",
    labelNames: ["gateway", "model"] as const,
    registers: [registry],
  });
  const budget = new prom.Counter({
    name: "agentsvc_budget_events_total",
    help: "Budget warnings (warnAt reached) and refusals (a model call refused: budget_exceeded), by scope (service, user, gateway, agent) and period (day, month)",
    labelNames: ["event", "scope", "period"] as const,
    registers: [registry],
  });
  return {
    observeSpend({ gateway, model }, usage, costNanos) {
      const add = (type: string, n: number) => {
        if (n > 0) tokens.inc({ gateway, model, type }, n);
      };
      add("input", usage.inputTokens);
      add("output", usage.outputTokens);
      add("cached_input", usage.cachedInputTokens);
      add("cache_write_input", usage.cacheWriteInputTokens);
      add("reasoning", usage.reasoningTokens);
      if (costNanos > 0) cost.inc({ gateway, model }, costNanos / 1e9);
    },
    observeBudget(event, scope, period) {
      budget.inc({ event, scope, period });
    },
  };
}
