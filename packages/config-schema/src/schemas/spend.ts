// What the agent may spend: model prices (per million tokens, for the cost ledger) and budgets of
// tokens and cost per user, gateway, agent and for the whole service, per UTC day and month.
// Everything is opt-in; without `budgets` nothing is refused.
import * as v from "valibot";
import { strict } from "./common.js";

const perMillion = (what: string) =>
  v.pipe(
    v.number(`must be a number (${what}, per million tokens)`),
    v.minValue(0, `must be 0 or more (${what}, per million tokens)`),
    v.finite(`must be a finite number (${what}, per million tokens)`),
  );

/** One model's price, in the currency you bill in, per million tokens. */
const priceSchema = strict(
  {
    input: perMillion("price of input tokens"),
    output: perMillion("price of output tokens"),
    cachedInput: v.optional(perMillion("price of input tokens read from the provider's cache")),
    /**
     * Input tokens written to the provider's prompt cache (Anthropic: 1.25x input for the 5-minute
     * cache, 2x for the 1-hour one). Absent: the input price, as the providers that report no
     * separate write price bill it.
     */
    cacheWriteInput: v.optional(perMillion("price of input tokens written to the provider's cache")),
  },
  "a price: { input, output, cachedInput?, cacheWriteInput? } per million tokens",
);

/**
 * `prices: { "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 } }`;
 * `"anthropic/claude-sonnet-4-5": { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 }`.
 */
export const pricesSchema = v.record(
  v.pipe(v.string(), v.trim(), v.minLength(1, "must name a model (provider/model)")),
  priceSchema,
  "must be a mapping of model (provider/model) to { input, output, cachedInput?, cacheWriteInput? }",
);

const limit = strict(
  {
    tokens: v.optional(
      v.pipe(
        v.number("must be a number (input plus output tokens)"),
        v.integer("must be an integer (input plus output tokens)"),
        v.minValue(1, "must be at least 1 (input plus output tokens)"),
      ),
    ),
    cost: v.optional(
      v.pipe(
        v.number("must be a number (cost in the prices' currency)"),
        v.minValue(0, "must be 0 or more (cost in the prices' currency)"),
        v.finite("must be a finite number (cost)"),
      ),
    ),
  },
  "a limit: { tokens?, cost? }",
);

/** Limits of one scope: per UTC day and per UTC month. */
const limits = strict({ day: v.optional(limit), month: v.optional(limit) }, "limits: { day?, month? }");

const named = (what: string) =>
  v.record(
    v.pipe(v.string(), v.trim(), v.minLength(1)),
    limits,
    `must be a mapping of ${what} name to { day?, month? }`,
  );

export const budgetsSchema = strict(
  {
    /** Everything the service spends together. */
    service: v.optional(limits),
    /** Each user (a gateway sender, a page account, an agent-route caller) on their own. */
    perUser: v.optional(limits),
    /** Each push gateway entry (the chat page and agent route count as none). */
    perGateway: v.optional(limits),
    /** Each agent. */
    perAgent: v.optional(limits),
    /** One gateway entry's own limits, instead of perGateway's. */
    gateways: v.optional(named("push gateway entry")),
    /** One agent's own limits, instead of perAgent's. */
    agents: v.optional(named("agent")),
    /** Fraction of a limit at which a warning is logged and counted (default 0.8). */
    warnAt: v.optional(
      v.pipe(
        v.number("must be a number between 0 and 1 (fraction of a limit)"),
        v.minValue(0, "must be between 0 and 1 (fraction of a limit)"),
        v.maxValue(1, "must be between 0 and 1 (fraction of a limit)"),
      ),
    ),
  },
  "budgets: { service?, perUser?, perGateway?, perAgent?, gateways?, agents?, warnAt? }",
);

export type PriceConfig = v.InferOutput<typeof priceSchema>;
export type BudgetLimits = v.InferOutput<typeof limits>;
export type BudgetsConfig = v.InferOutput<typeof budgetsSchema>;
