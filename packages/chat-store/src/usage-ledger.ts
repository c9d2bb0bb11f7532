// The cost ledger (store-schema step 9, cache writes step 16): one row per model call with its tokens and its cost at
// record time, and the sums budgets and `agentsvc usage` read. Shared by every instance of a
// PostgreSQL store, so a budget counts what all instances spent.
import type { StoreContext } from "./context.js";
import type { SQL, SQLWrapper } from "drizzle-orm";
import { and, desc, eq, gte, lt, sql } from "./orm.js";
import { StatementBatch } from "./statement-batch.js";
import { pgRows, usageInsert } from "./pg-writes.js";

/** Record calls one grouped statement serves (its rows travel as arrays: one text for any number, pg-writes.ts). */
const MAX_RECORDS = 500;

/** The call's purpose: a turn's model call, a summary (compaction), or a scheduled turn's call. */
export type UsageKind = "turn" | "compaction" | "scheduled";

export interface UsageEntry {
  /** Epoch ms. */
  at: number;
  userId: string;
  /** The push gateway entry the turn came from; null for the chat page and the agent route. */
  gateway: string | null;
  agent: string;
  conversationId: string;
  provider: string;
  model: string;
  kind: UsageKind;
  /** `ok`, or the failure's TurnError code. */
  outcome: string;
  /** The whole prompt; the cached and cache-write counts are parts of it. */
  inputTokens: number;
  outputTokens: number;
  /** Read from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Written to the provider's prompt cache (absent: 0). */
  cacheWriteInputTokens?: number;
  reasoningTokens: number;
  /** Cost in billionths of the prices' currency (integers sum exactly). */
  costNanos: number;
}

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  reasoningTokens: number;
  costNanos: number;
}

export type UsageGroup = "user" | "gateway" | "agent" | "model";

/** Which rows a sum covers: from `since` (epoch ms), optionally one user, gateway or agent. */
export interface UsageFilter {
  since: number;
  userId?: string;
  gateway?: string;
  agent?: string;
}

/** Whose rows a budget sums: the service's (no field), or one user's, gateway's or agent's. */
export type UsageScope = Omit<UsageFilter, "since">;

/** What a budget counts: tokens (input plus output) and cost in billionths. */
export interface Spend {
  tokens: number;
  costNanos: number;
}

/** One scope's spend in the UTC day and month (a day's rows are in its month's too). */
export interface PeriodSpend {
  day: Spend;
  month: Spend;
}

/** The rows a split sum reads: `at` from `from`, the day's and month's starts, and the cutoff it splits them at. */
export interface SplitRange {
  from: number;
  cutoff: number;
  day: number;
  month: number;
}

export class UsageLedger {
  private get l() {
    return this.ctx.tables.usageLedger;
  }

  /**
   * PostgreSQL: records made while one insert is in flight go together in the next (statement-batch.ts);
   * every turn's model calls end at their own time, so without it each was an insert of its own.
   */
  readonly #batch: StatementBatch<UsageEntry[], void> | undefined;

  constructor(private readonly ctx: StoreContext) {
    if (ctx.dialect !== "postgres") return;
    this.#batch = new StatementBatch(async (records) => {
      await this.ctx.run((db) => pgRows(db, usageInsert(records.flat())));
      return records.map(() => undefined);
    }, MAX_RECORDS);
  }

  /** Writes one call's row, or several in one statement (the server batches what ended together). */
  async record(entries: UsageEntry | UsageEntry[]): Promise<void> {
    const rows = Array.isArray(entries) ? entries : [entries];
    if (rows.length === 0) return;
    if (this.#batch && !this.ctx.inTransaction()) return this.#batch.add(rows);
    if (this.ctx.dialect === "postgres") await this.ctx.run((db) => pgRows(db, usageInsert(rows)));
    else await this.ctx.run((db) => db.insert(this.l).values(rows));
  }

  /** The sums over the rows the filter covers. */
  async totals(filter: UsageFilter): Promise<UsageTotals> {
    const rows = await this.ctx.run((db) => db.select(this.sums()).from(this.l).where(this.where(filter)));
    return toTotals(rows[0]);
  }

  /**
   * One scope's day and month spend over the rows at/after `from`, split into those before `cutoff`
   * (`settled`) and those at/after it (`recent`): one statement for both periods and both parts
   * (usage-sums.ts reads a period's settled part once in a while, the recent part at every refresh:
   * then `from` is the cutoff, and the statement has no settled sums).
   */
  async spendSplit(
    scope: UsageScope,
    range: SplitRange,
  ): Promise<{ settled: PeriodSpend; recent: PeriodSpend }> {
    const l = this.l;
    const { cutoff, day, month } = range;
    const withSettled = range.from < cutoff;
    const sums = (when: SQL) => ({
      tokens: sql<number>`coalesce(sum(${l.inputTokens} + ${l.outputTokens}) FILTER (WHERE ${when}), 0)`,
      costNanos: sql<number>`coalesce(sum(${l.costNanos}) FILTER (WHERE ${when}), 0)`,
    });
    // Rows read from the cutoff on are all recent: only the period's start filters them.
    const recent = (since: number) =>
      sums(withSettled ? and(gte(l.at, cutoff), gte(l.at, since))! : gte(l.at, since));
    const settled = (since: number) => sums(and(lt(l.at, cutoff), gte(l.at, since))!);
    const columns = {
      recentDay: recent(day),
      recentMonth: recent(month),
      ...(withSettled ? { settledDay: settled(day), settledMonth: settled(month) } : {}),
    };
    const rows = await this.ctx.run((db) =>
      db
        .select({
          recentDay: columns.recentDay.tokens,
          recentDayCost: columns.recentDay.costNanos,
          recentMonth: columns.recentMonth.tokens,
          recentMonthCost: columns.recentMonth.costNanos,
          ...(columns.settledDay && columns.settledMonth
            ? {
                settledDay: columns.settledDay.tokens,
                settledDayCost: columns.settledDay.costNanos,
                settledMonth: columns.settledMonth.tokens,
                settledMonthCost: columns.settledMonth.costNanos,
              }
            : {}),
        })
        .from(l)
        .where(this.where({ since: range.from, ...scope })),
    );
    const r: Record<string, unknown> = rows[0] ?? {};
    const spend = (tokens: unknown, costNanos: unknown): Spend => ({
      tokens: Number(tokens ?? 0),
      costNanos: Number(costNanos ?? 0),
    });
    return {
      settled: {
        day: spend(r.settledDay, r.settledDayCost),
        month: spend(r.settledMonth, r.settledMonthCost),
      },
      recent: {
        day: spend(r.recentDay, r.recentDayCost),
        month: spend(r.recentMonth, r.recentMonthCost),
      },
    };
  }

  /** The sums per user, gateway, agent or model (provider/model) since `since`, costliest first. */
  async byGroup(group: UsageGroup, since: number): Promise<(UsageTotals & { key: string })[]> {
    const l = this.l;
    const key =
      group === "user"
        ? l.userId
        : group === "gateway"
          ? sql<string>`coalesce(${l.gateway}, '')`
          : group === "agent"
            ? l.agent
            : sql<string>`${l.provider} || '/' || ${l.model}`;
    const cost = sql<number>`sum(${l.costNanos})`;
    const rows = await this.ctx.run((db) =>
      db
        .select({ key, ...this.sums() })
        .from(l)
        .where(gte(l.at, since))
        .groupBy(key)
        .orderBy(desc(cost), key),
    );
    return rows.map((r) => ({ key: String(r.key), ...toTotals(r) }));
  }

  private sums() {
    const l = this.l;
    const sum = (column: SQLWrapper) => sql<number>`coalesce(sum(${column}), 0)`;
    return {
      calls: sql<number>`count(*)`,
      inputTokens: sum(l.inputTokens),
      outputTokens: sum(l.outputTokens),
      cachedInputTokens: sum(l.cachedInputTokens),
      cacheWriteInputTokens: sum(l.cacheWriteInputTokens),
      reasoningTokens: sum(l.reasoningTokens),
      costNanos: sum(l.costNanos),
    };
  }

  private where(filter: UsageFilter) {
    const l = this.l;
    return and(
      gte(l.at, filter.since),
      filter.userId !== undefined ? eq(l.userId, filter.userId) : undefined,
      filter.gateway !== undefined ? eq(l.gateway, filter.gateway) : undefined,
      filter.agent !== undefined ? eq(l.agent, filter.agent) : undefined,
    );
  }
}

// PostgreSQL answers sum() over bigint as numeric, which the driver hands over as a string.
function toTotals(row: Record<string, unknown> | undefined): UsageTotals {
  const n = (v: unknown) => Number(v ?? 0);
  return {
    calls: n(row?.calls),
    inputTokens: n(row?.inputTokens),
    outputTokens: n(row?.outputTokens),
    cachedInputTokens: n(row?.cachedInputTokens),
    cacheWriteInputTokens: n(row?.cacheWriteInputTokens),
    reasoningTokens: n(row?.reasoningTokens),
    costNanos: n(row?.costNanos),
  };
}
