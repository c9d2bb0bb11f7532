// A budget's day and month sums without reading the whole month at every refresh: per scope, a
// settled part (the period's rows before a cutoff MARGIN_MS in the past, read with the first read
// and again every REBASE_MS) plus, at each read, only the rows at/after that cutoff. What a read
// costs grows with the rows of the last REBASE_MS + MARGIN_MS, not with the rows already in the
// month (a busy service's month is 10^5-10^6 rows, read once a second on every instance before).
// Nothing is written per call: every instance reads the same ledger, so another instance's rows
// count from the next read, as with the full sum.
import type { PeriodSpend, Spend, UsageLedger, UsageScope } from "./usage-ledger.js";

/**
 * How far in the past the cutoff is. A row whose `at` is before the cutoff but that is committed
 * after the settled part was read is missed until the next rebase (at most REBASE_MS later). The
 * server's meter writes a call's row within its 100 ms window (usage-ledger batches on PostgreSQL
 * add an insert's time), so only an instance whose clock is minutes behind, or a write stalled for
 * minutes, could do that; five minutes is far beyond both.
 */
export const MARGIN_MS = 5 * 60_000;
/** How often a scope's settled part is read again (the one read that covers the period's rows). */
export const REBASE_MS = 10 * 60_000;
/** Scopes whose settled part is kept at once; past it they start again (each is read again once). */
const MAX_SCOPES = 10_000;

export interface UsageSumsOptions {
  marginMs?: number;
  rebaseMs?: number;
}

interface Settled {
  /** Rows before this are in `spend`; the reads after it sum from it. */
  cutoff: number;
  /** When it was read. */
  readAt: number;
  /** The period starts it was read for. */
  day: number;
  month: number;
  spend: PeriodSpend;
}

const NONE: Spend = { tokens: 0, costNanos: 0 };

export class UsageSums {
  readonly #settled = new Map<string, Settled>();
  readonly #marginMs: number;
  readonly #rebaseMs: number;

  constructor(
    private readonly ledger: Pick<UsageLedger, "spendSplit">,
    options: UsageSumsOptions = {},
  ) {
    this.#marginMs = options.marginMs ?? MARGIN_MS;
    this.#rebaseMs = options.rebaseMs ?? REBASE_MS;
  }

  /** The scope's spend in the day and month that start at `starts`, as of `at` (one statement). */
  async read(scope: UsageScope, starts: { day: number; month: number }, at: number): Promise<PeriodSpend> {
    const key = keyOf(scope);
    const held = this.#settled.get(key);
    // Read again after REBASE_MS (a row committed late is counted then), and if the clock went back.
    if (!held || at - held.readAt >= this.#rebaseMs || at < held.readAt || starts.day < held.day) {
      const cutoff = at - this.#marginMs;
      const split = await this.ledger.spendSplit(scope, { from: starts.month, cutoff, ...starts });
      if (this.#settled.size >= MAX_SCOPES) this.#settled.clear();
      this.#settled.set(key, { cutoff, readAt: at, ...starts, spend: split.settled });
      return plus(split.settled, split.recent);
    }
    const split = await this.ledger.spendSplit(scope, { from: held.cutoff, cutoff: held.cutoff, ...starts });
    // A period that started since the settled read has none of its rows before the cutoff (the
    // cutoff is before that read, so before the period's start); its rows since are all recent.
    const settled: PeriodSpend = {
      day: held.day === starts.day ? held.spend.day : NONE,
      month: held.month === starts.month ? held.spend.month : NONE,
    };
    return plus(settled, split.recent);
  }
}

function plus(a: PeriodSpend, b: PeriodSpend): PeriodSpend {
  const add = (x: Spend, y: Spend): Spend => ({
    tokens: x.tokens + y.tokens,
    costNanos: x.costNanos + y.costNanos,
  });
  return { day: add(a.day, b.day), month: add(a.month, b.month) };
}

function keyOf(scope: UsageScope): string {
  return `${scope.userId ?? ""}\u0000${scope.gateway ?? ""}\u0000${scope.agent ?? ""}\u0000${
    (scope.userId !== undefined ? 1 : 0) |
    (scope.gateway !== undefined ? 2 : 0) |
    (scope.agent !== undefined ? 4 : 0)
  }`;
}
