// What the agent may spend: every model call's tokens go to the cost ledger with their cost at
// record time (prices per million tokens from agentsvc.config), and every model call is first
// checked against the budgets (per UTC day and month; the service, each user, gateway and agent).
import type { MeteredCall, MeterScope, ModelMeter, TurnError } from "@agentsvc/agent-core";
import {
  type PeriodSpend,
  type UsageEntry,
  type UsageLedger,
  type UsageScope,
  UsageSums,
} from "@agentsvc/chat-store";
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
  /** The whole prompt: the cache's read and write are parts of it (agent-core models/usage.ts). */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  reasoningTokens: number;
}

export interface SpendMeterOptions {
  ledger: Pick<UsageLedger, "record" | "spendSplit">;
  prices?: Record<string, PriceConfig> | undefined;
  budgets?: BudgetsConfig | undefined;
  logger: Pick<Logger, "warn" | "error">;
  metrics?: SpendObserver | undefined;
  now?: () => number;
  /** How long a recorded call's row waits for others to share its insert. Default LEDGER_WINDOW_MS. */
  writeWindowMs?: number;
  /** How long a budget's ledger read may take before it counts as failed. Default LEDGER_READ_TIMEOUT_MS. */
  readTimeoutMs?: number;
}

export const DEFAULT_WARN_AT = 0.8;
/**
 * Rows of calls ending within this many ms go in one insert. Grouping only what ended in the same
 * turn of the event loop (or while an insert was in flight) made an insert per two or three
 * requests on each of three instances, each with a third of the load, against one per eleven on
 * one (#45.3); a window groups by time, whatever the instance's share. Shutdown (`flush`) writes
 * what waits at once; a budget's read adds it to the sums it read instead (spentIn). A crash loses
 * at most this window's rows (and those of a window that ended during a budget's read).
 */
const LEDGER_WINDOW_MS = 100;
/** Rows that end the window early (one statement stays far below PostgreSQL's parameter limit). */
const MAX_WINDOW_ROWS = 500;
/** Warnings remembered (one per scope, period and window); past it the memory starts again. */
const MAX_WARNED = 10_000;
/**
 * How long a budget's sums read from the ledger are trusted: this instance's own calls are added to
 * them as they are recorded, other instances' show up at the next read (so on several instances a
 * budget sees the others' spend within this long). Without it every call paid a ledger sum per
 * budget (pnpm bench spend: 0.45x end to end). A read is one statement for the day and the month,
 * over the rows since a settled part's cutoff (chat-store usage-sums.ts), not the whole month.
 */
const REFRESH_MS = 1_000;
/** Cached sums kept at once (one per budget scope and name); past it they are read again. */
const MAX_CACHED = 10_000;
/**
 * A budget's ledger read (with the inserts it waits for first) not settled in this long fails for
 * the calls waiting on it, as a read the ledger refused does, and the inserts due meanwhile go
 * ahead. A hung PostgreSQL (a stuck backend, or a partition without a reset, which TCP gives up on
 * after many minutes; no statement timeout by default) held them all before, the rows in memory,
 * and every call sharing the read waited as long. A read answers in a few ms (bench spend meter-pg:
 * an admit waited 1-2 ms); 10 s is far beyond a slow answer, the time pg-cluster's link gives a
 * statement before it counts its connection dead, and short beside usage-sums' MARGIN_MS (5 min):
 * an insert is never held behind reads long enough for another instance's settled sums to miss it.
 */
const LEDGER_READ_TIMEOUT_MS = 10_000;

export interface SpendMeter extends ModelMeter {
  /** Settles once every ledger write started so far has (tests, shutdown). */
  flush(): Promise<void>;
}

export function createSpendMeter(options: SpendMeterOptions): SpendMeter {
  const now = options.now ?? Date.now;
  const pending = new Set<Promise<void>>();
  const windowMs = options.writeWindowMs ?? LEDGER_WINDOW_MS;
  const readTimeoutMs = options.readTimeoutMs ?? LEDGER_READ_TIMEOUT_MS;
  // Rows of calls that ended within one window go in one statement.
  let queued: UsageEntry[] = [];
  /** Ends the open window now (its rows are written next); undefined while none is open. */
  let closeWindow: (() => void) | undefined;
  /**
   * A budget's read and this instance's inserts never overlap, so a read knows which of this
   * instance's rows it holds: an insert due during reads waits for them (`waiting` keeps its rows
   * meanwhile), a read waits for the inserts due before it and adds the rows not sent yet
   * (`queued`, `waiting`) to what it read.
   */
  const reads = new Set<Promise<unknown>>();
  const writes = new Set<Promise<void>>();
  const waiting = new Set<UsageEntry[]>();
  const writeQueued = () => {
    const rows = queued;
    queued = [];
    const send = () => {
      waiting.delete(rows);
      return options.ledger.record(rows);
    };
    let sent: Promise<void>;
    if (reads.size === 0) sent = send();
    else {
      waiting.add(rows);
      sent = Promise.allSettled([...reads]).then(send);
    }
    const write = sent
      .catch((err: unknown) =>
        options.logger.error(
          { err: String(err), calls: rows.length },
          "could not record model calls in the cost ledger",
        ),
      )
      .finally(() => {
        pending.delete(write);
        writes.delete(write);
      });
    pending.add(write);
    writes.add(write);
  };
  /** What this instance's rows not sent to the ledger yet add to a scope's day and month. */
  const unsent = (scope: UsageScope, starts: Record<Period, number>): PeriodSpend => {
    const spend = nothingSpent();
    for (const rows of [queued, ...waiting])
      for (const row of rows) {
        if (row.at < starts.month || !inScope(row, scope)) continue;
        const tokens = row.inputTokens + row.outputTokens;
        spend.month.tokens += tokens;
        spend.month.costNanos += row.costNanos;
        if (row.at >= starts.day) {
          spend.day.tokens += tokens;
          spend.day.costNanos += row.costNanos;
        }
      }
    return spend;
  };
  const openWindow = () => {
    let timer: NodeJS.Timeout | undefined;
    const window = new Promise<void>((resolve) => {
      const close = () => {
        clearTimeout(timer);
        closeWindow = undefined;
        resolve();
      };
      closeWindow = close;
      timer = setTimeout(close, windowMs);
    }).then(writeQueued);
    pending.add(window);
    void window.finally(() => pending.delete(window));
  };
  const warned = new Set<string>();
  const unpriced = new Set<string>();
  const sums = new Map<string, Spent>();
  const ledgerSums = new UsageSums(options.ledger);
  const flush = async () => {
    closeWindow?.();
    while (pending.size > 0) await Promise.all([...pending]);
  };

  const record = (call: MeteredCall) => {
    const tokens: LedgerTokens = {
      inputTokens: call.usage.inputTokens ?? 0,
      outputTokens: call.usage.outputTokens ?? 0,
      cachedInputTokens: call.usage.cachedInputTokens ?? 0,
      cacheWriteInputTokens: call.usage.cacheWriteInputTokens ?? 0,
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
    const at = now();
    queued.push({
      at,
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
    });
    if (queued.length === 1) openWindow();
    else if (queued.length >= MAX_WINDOW_ROWS) closeWindow?.();
    // This instance's own spend counts at once in the sums it holds.
    if (options.budgets) {
      const starts = periodStarts(at);
      for (const check of checksFor(options.budgets, call.scope)) {
        const held = sums.get(keyOf(check));
        if (!held) continue;
        for (const period of PERIODS)
          if (held.starts[period] === starts[period]) {
            held.spend[period].tokens += tokens.inputTokens + tokens.outputTokens;
            held.spend[period].costNanos += costNanos;
          }
      }
    }
    options.metrics?.observeSpend({ gateway: call.scope.gateway ?? "none", model }, tokens, costNanos);
  };

  /** What a budget has spent in the day and month `starts` begin, from the ledger at most REFRESH_MS ago. */
  const spentIn = async (check: Check, starts: Record<Period, number>, at: number): Promise<Spent> => {
    const key = keyOf(check);
    const held = sums.get(key);
    if (held && isFresh(held, starts, at)) return held;
    // A read for other periods (started before a UTC midnight) would answer with yesterday's sums.
    if (held?.reading && isFor(held, starts)) return held.reading;
    let givenUp = false;
    const answer = (async () => {
      // Inserts due before this read land first; those due during it wait for it (writeQueued).
      // Before, the open window was written first: an insert per read, and a call recorded during
      // the read was missing from the sums until the next read.
      if (writes.size > 0) await Promise.all([...writes]);
      if (givenUp) throw new Error("given up");
      const read = await ledgerSums.read(check.filter, starts, at);
      // A late answer is not used: the inserts that waited for this read went ahead when it was
      // given up, so a row may be in neither the ledger it read nor the rows unsent() still holds.
      if (givenUp) throw new Error("given up");
      const fresh: Spent = { starts, readAt: at, spend: plus(read, unsent(check.filter, starts)) };
      if (sums.size >= MAX_CACHED) sums.clear();
      sums.set(key, fresh);
      return fresh;
    })();
    let timer: NodeJS.Timeout | undefined;
    const reading = new Promise<Spent>((resolve, reject) => {
      timer = setTimeout(() => {
        givenUp = true;
        options.logger.error(
          { budget: check.scope, name: check.name, day: new Date(starts.day).toISOString(), readTimeoutMs },
          "the cost ledger did not answer a budget's read in time: the calls waiting for it fail",
        );
        reject(new Error(`the cost ledger did not answer a budget's read within ${readTimeoutMs} ms`));
      }, readTimeoutMs);
      // A process at its end does not wait for a read's timer.
      timer.unref();
      answer.then(resolve, reject);
    }).finally(() => clearTimeout(timer));
    reads.add(reading);
    void reading.then(
      () => reads.delete(reading),
      () => reads.delete(reading),
    );
    const placeholder: Spent =
      held && isFor(held, starts) ? held : { starts, readAt: 0, spend: nothingSpent() };
    placeholder.reading = reading;
    sums.set(key, placeholder);
    try {
      return await reading;
    } finally {
      placeholder.reading = undefined;
    }
  };

  const admit = async (scope: MeterScope): Promise<TurnError | undefined> => {
    const budgets = options.budgets;
    if (!budgets) return undefined;
    const at = now();
    const starts = periodStarts(at);
    const warnAt = budgets.warnAt ?? DEFAULT_WARN_AT;
    for (const check of checksFor(budgets, scope)) {
      let spent: Spent | undefined;
      for (const period of PERIODS) {
        const limit = check.limits[period];
        if (!limit || (limit.tokens === undefined && limit.cost === undefined)) continue;
        const since = starts[period];
        // Sums read within REFRESH_MS are used as they are: up to 4 checks a call, each an async
        // function and an await when every one went through spentIn.
        if (!spent) {
          const held = sums.get(keyOf(check));
          spent = held && isFresh(held, starts, at) ? held : await spentIn(check, starts, at);
        }
        const tokens = spent.spend[period].tokens;
        const cost = spent.spend[period].costNanos / 1e9;
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

interface Spent {
  /** The day's and month's starts. */
  starts: Record<Period, number>;
  readAt: number;
  spend: PeriodSpend;
  /** A ledger read under way for these sums (concurrent calls share it). */
  reading?: Promise<Spent> | undefined;
}

function isFor(held: Spent, starts: Record<Period, number>): boolean {
  return held.starts.day === starts.day && held.starts.month === starts.month;
}

/** Sums for these periods read within REFRESH_MS: used as they are. */
function isFresh(held: Spent, starts: Record<Period, number>, at: number): boolean {
  return isFor(held, starts) && at - held.readAt < REFRESH_MS;
}

/** Whether a ledger row is one of the scope's (its filter, as the ledger's where reads it). */
function inScope(row: UsageEntry, scope: UsageScope): boolean {
  return (
    (scope.userId === undefined || row.userId === scope.userId) &&
    (scope.gateway === undefined || row.gateway === scope.gateway) &&
    (scope.agent === undefined || row.agent === scope.agent)
  );
}

function plus(a: PeriodSpend, b: PeriodSpend): PeriodSpend {
  return {
    day: { tokens: a.day.tokens + b.day.tokens, costNanos: a.day.costNanos + b.day.costNanos },
    month: { tokens: a.month.tokens + b.month.tokens, costNanos: a.month.costNanos + b.month.costNanos },
  };
}

function nothingSpent(): PeriodSpend {
  return { day: { tokens: 0, costNanos: 0 }, month: { tokens: 0, costNanos: 0 } };
}

function keyOf(check: Check): string {
  return `${check.scope}\u0000${check.name}`;
}

interface Check {
  scope: BudgetScope;
  /** For logs: the user id, gateway or agent name. */
  name: string;
  label: string;
  filter: UsageScope;
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

/**
 * Cost in billionths: uncached input, input read from the provider's cache and input written to it
 * (each at its own price when given, else the input price) and output. The read and the write are
 * parts of `inputTokens` on every provider, so each input token is priced once.
 */
export function costOf(tokens: LedgerTokens, price: PriceConfig): number {
  const cached = Math.min(tokens.cachedInputTokens, tokens.inputTokens);
  const written = Math.min(tokens.cacheWriteInputTokens, tokens.inputTokens - cached);
  const perToken =
    (tokens.inputTokens - cached - written) * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWriteInput ?? price.input) +
    tokens.outputTokens * price.output;
  // price per million tokens * 1e9 nanos / 1e6 tokens
  return Math.round(perToken * 1000);
}

const PERIODS = ["day", "month"] as const;

/** The starts of the UTC day and month `at` falls in (one Date for both). */
function periodStarts(at: number): Record<Period, number> {
  const d = new Date(at);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth();
  return { day: Date.UTC(year, month, d.getUTCDate()), month: Date.UTC(year, month, 1) };
}

/** The start of the UTC day or month `at` falls in. */
export function periodStart(period: Period, at: number): number {
  return periodStarts(at)[period];
}

/** When the UTC day or month `at` falls in ends (the budget starts again). */
function periodEnd(period: Period, at: number): number {
  const d = new Date(at);
  return period === "day"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
