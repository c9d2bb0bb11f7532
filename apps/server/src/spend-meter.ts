// What the agent may spend: every model call's tokens go to the cost ledger with their cost at
// record time (prices per million tokens from agentsvc.config), and every model call is first
// checked against the budgets (per UTC day and month; the service, each user, gateway and agent).
import type { MeteredCall, MeterScope, ModelMeter, TurnError } from "@agentsvc/agent-core";
import type { UsageFilter, UsageLedger } from "@agentsvc/chat-store";
import type { BudgetLimits, BudgetsConfig, PriceConfig } from "@agentsvc/config-schema";
import type { Logger } from "pino";

/** Budget scopes, as metrics label them. */
export type BudgetScope = "service" | "user" | "gateway" | "agent";
type Period = "day" | "month";

/** What the metrics hear (labels stay bounded: declared gateways and models, scope kinds). */
export interface SpendObserver {
  observeSpend(labels: { gateway: string; model: string }, usage: LedgerTokens, costNanos: number): void;
  observeBudget(event: "warning" | "refused", scope: BudgetScope, period: Period): void;
}

interface LedgerTokens {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
}

export interface SpendMeterOptions {
  ledger: Pick<UsageLedger, "record" | "totals">;
  prices?: Record<string, PriceConfig> | undefined;
  budgets?: BudgetsConfig | undefined;
  logger: Pick<Logger, "warn" | "error">;
  metrics?: SpendObserver | undefined;
  now?: () => number;
}

export const DEFAULT_WARN_AT = 0.8;
/** Warnings remembered (one per scope, period and window); past it the memory starts again. */
const MAX_WARNED = 10_000;

export interface SpendMeter extends ModelMeter {
  /** Settles once every ledger write started so far has (tests, shutdown). */
  flush(): Promise<void>;
}

export function createSpendMeter(options: SpendMeterOptions): SpendMeter {
  const now = options.now ?? Date.now;
  const pending = new Set<Promise<void>>();
  const warned = new Set<string>();
  const unpriced = new Set<string>();
  const flush = async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  };

  const record = (call: MeteredCall) => {
    const tokens: LedgerTokens = {
      inputTokens: call.usage.inputTokens ?? 0,
      outputTokens: call.usage.outputTokens ?? 0,
      cachedInputTokens: call.usage.cachedInputTokens ?? 0,
      reasoningTokens: call.usage.reasoningTokens ?? 0,
    };
    const model = `${call.provider}/${call.modelId}`;
    const price = options.prices?.[model] ?? options.prices?.[call.modelId];
    if (!price && options.prices && !unpriced.has(model)) {
      unpriced.add(model);
      options.logger.warn(
        { model },
        "no price for this model in agentsvc.config prices: its cost counts as 0",
      );
    }
    const costNanos = price ? costOf(tokens, price) : 0;
    const write = options.ledger
      .record({
        at: now(),
        userId: call.scope.userId,
        gateway: call.scope.gateway ?? null,
        agent: call.scope.agent,
        conversationId: call.scope.conversationId,
        provider: call.provider,
        model: call.modelId,
        kind: call.kind,
        outcome: call.outcome,
        ...tokens,
        costNanos,
      })
      .catch((err: unknown) =>
        options.logger.error({ err: String(err), model }, "could not record a model call in the cost ledger"),
      )
      .finally(() => pending.delete(write));
    pending.add(write);
    options.metrics?.observeSpend({ gateway: call.scope.gateway ?? "none", model }, tokens, costNanos);
  };

  const admit = async (scope: MeterScope): Promise<TurnError | undefined> => {
    const budgets = options.budgets;
    if (!budgets) return undefined;
    // A call that just ended counts before the next one is decided.
    await flush();
    const at = now();
    const warnAt = budgets.warnAt ?? DEFAULT_WARN_AT;
    for (const check of checksFor(budgets, scope)) {
      for (const period of ["day", "month"] as const) {
        const limit = check.limits[period];
        if (!limit || (limit.tokens === undefined && limit.cost === undefined)) continue;
        const since = periodStart(period, at);
        const spent = await options.ledger.totals({ since, ...check.filter });
        const tokens = spent.inputTokens + spent.outputTokens;
        const cost = spent.costNanos / 1e9;
        const ratio = Math.max(
          limit.tokens !== undefined ? tokens / limit.tokens : 0,
          limit.cost !== undefined ? (limit.cost === 0 ? Number.POSITIVE_INFINITY : cost / limit.cost) : 0,
        );
        const facts = { budget: check.scope, name: check.name, period, tokens, cost, limit };
        if (ratio >= 1) {
          const resets = periodEnd(period, at);
          options.metrics?.observeBudget("refused", check.scope, period);
          options.logger.warn(facts, "budget spent: model call refused");
          const resetsAt = new Date(resets).toISOString();
          return {
            code: "budget_exceeded",
            message: `The ${period === "day" ? "daily" : "monthly"} budget of ${check.label} is used up; it resets at ${resetsAt}.`,
            retryAfterMs: resets - at,
            resetsAt,
            statusCode: 429,
          };
        }
        if (ratio >= warnAt) {
          const key = `${check.scope}\u0000${check.name}\u0000${period}\u0000${since}`;
          if (!warned.has(key)) {
            if (warned.size >= MAX_WARNED) warned.clear();
            warned.add(key);
            options.metrics?.observeBudget("warning", check.scope, period);
            options.logger.warn({ ...facts, warnAt }, "budget nearly spent");
          }
        }
      }
    }
    return undefined;
  };

  return {
    admit,
    record(call) {
      try {
        record(call);
      } catch (err) {
        options.logger.error({ err: String(err) }, "could not record a model call in the cost ledger");
      }
    },
    flush,
  };
}

interface Check {
  scope: BudgetScope;
  /** For logs: the user id, gateway or agent name. */
  name: string;
  label: string;
  filter: Omit<UsageFilter, "since">;
  limits: BudgetLimits;
}

/** The budgets that apply to a call of this scope: the service's, the user's, the gateway's, the agent's. */
function checksFor(budgets: BudgetsConfig, scope: MeterScope): Check[] {
  const checks: Check[] = [];
  if (budgets.service)
    checks.push({ scope: "service", name: "", label: "the service", filter: {}, limits: budgets.service });
  if (budgets.perUser)
    checks.push({
      scope: "user",
      name: scope.userId,
      label: "this user",
      filter: { userId: scope.userId },
      limits: budgets.perUser,
    });
  if (scope.gateway !== undefined) {
    const limits = budgets.gateways?.[scope.gateway] ?? budgets.perGateway;
    if (limits)
      checks.push({
        scope: "gateway",
        name: scope.gateway,
        label: `the gateway ${scope.gateway}`,
        filter: { gateway: scope.gateway },
        limits,
      });
  }
  const agentLimits = budgets.agents?.[scope.agent] ?? budgets.perAgent;
  if (agentLimits)
    checks.push({
      scope: "agent",
      name: scope.agent,
      label: `the agent ${scope.agent}`,
      filter: { agent: scope.agent },
      limits: agentLimits,
    });
  return checks;
}

/** Cost in billionths: uncached input, cached input (at its own price when given) and output. */
export function costOf(tokens: LedgerTokens, price: PriceConfig): number {
  const cached = Math.min(tokens.cachedInputTokens, tokens.inputTokens);
  const perToken =
    (tokens.inputTokens - cached) * price.input +
    cached * (price.cachedInput ?? price.input) +
    tokens.outputTokens * price.output;
  // price per million tokens * 1e9 nanos / 1e6 tokens
  return Math.round(perToken * 1000);
}

/** The start of the UTC day or month `at` falls in. */
export function periodStart(period: Period, at: number): number {
  const d = new Date(at);
  return period === "day"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** When the UTC day or month `at` falls in ends (the budget starts again). */
function periodEnd(period: Period, at: number): number {
  const d = new Date(at);
  return period === "day"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
