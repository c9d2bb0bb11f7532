// The spend meter's ledger reads and writes interleaved at random (src/spend-meter.ts): a real SQLite
// ledger whose every insert and sums read waits until the test lets it run (or fail), window timers
// on a fake clock, calls metered and budgets checked in a seeded order. After every step each refusal
// must report exactly what the scope spent as of the meter's last read: the rows the ledger had when
// that read ran, plus this instance's rows not in the ledger then (queued, waiting for the read, or
// recorded since), each once. A row in flight to the ledger during a read would be missed; one
// counted as not sent and also read would be counted twice. Budgets of one token make every admit
// with a spend refuse and log its sum, so the sum itself is checked, not only the verdict.
// Some reads hang (run only once the meter gave them up, or at shutdown): a read given up counts as
// failed for its admits, and its late answer must not be used (the inserts that waited for it went
// ahead), so it sets no snapshot; with a read timeout under REFRESH_MS, used, it would be fresh sums.
import type { MeterScope } from "@agentsvc/agent-core";
import { ChatDb, type UsageEntry, type UsageLedger, type UsageScope } from "@agentsvc/chat-store";
import type { BudgetLimits, BudgetsConfig } from "@agentsvc/config-schema";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { createSpendMeter } from "../src/spend-meter.js";

/** SPEND_SEEDS=3000 for a longer search. */
const SEEDS = Number(process.env.SPEND_SEEDS ?? 300);
const STEPS = 150;
const USERS = ["u1", "u2", "u3"];
const GATEWAYS = ["g1", "g2", undefined];
const AGENTS = ["a1", "a2"];
/** The meter's read timeout: under REFRESH_MS (a late answer would be fresh), and over it. */
const READ_TIMEOUTS = [300, 2_500];
/** Mid-day, two seconds before a UTC midnight, two seconds before a new UTC month. */
const STARTS = [
  Date.UTC(2026, 11, 15, 13, 30),
  Date.UTC(2026, 11, 15, 23, 59, 58),
  Date.UTC(2026, 11, 31, 23, 59, 58),
];

/** A seeded xorshift32: the same seed gives the same sequence of operations. */
function randomFrom(seed: number) {
  let s = (seed * 2_654_435_761) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}

interface Row {
  seq: number;
  at: number;
  userId: string;
  gateway: string | null;
  agent: string;
  tokens: number;
  costNanos: number;
  mine: boolean;
  /** Not handed to the ledger yet, handed and not finished, in the ledger (another instance's: at once), lost. */
  state: "unsent" | "flight" | "landed" | "failed";
}

/** What a read saw: the rows counted as of it (in the ledger, or this instance's not in it). */
interface Snapshot {
  seq: number;
  counted: Set<Row>;
}

type Kind = "service" | "user" | "gateway" | "agent";
interface Check {
  budget: Kind;
  name: string;
  filter: UsageScope;
}

function checkFor(kind: Kind, scope: MeterScope): Check | undefined {
  if (kind === "service") return { budget: kind, name: "", filter: {} };
  if (kind === "user") return { budget: kind, name: scope.userId, filter: { userId: scope.userId } };
  if (kind === "gateway")
    return scope.gateway === undefined
      ? undefined
      : { budget: kind, name: scope.gateway, filter: { gateway: scope.gateway } };
  return { budget: kind, name: scope.agent, filter: { agent: scope.agent } };
}

/** The ledger filter of a budget `kind` named `name`, as the meter's log names it. */
function filterOf(kind: Kind, name: string): UsageScope {
  if (kind === "service") return {};
  if (kind === "user") return { userId: name };
  return kind === "gateway" ? { gateway: name } : { agent: name };
}

const filterKey = (f: UsageScope) => JSON.stringify([f.userId ?? null, f.gateway ?? null, f.agent ?? null]);

function inScope(row: Row, f: UsageScope): boolean {
  return (
    (f.userId === undefined || row.userId === f.userId) &&
    (f.gateway === undefined || row.gateway === f.gateway) &&
    (f.agent === undefined || row.agent === f.agent)
  );
}

function periodStarts(at: number) {
  const d = new Date(at);
  return {
    day: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()),
    month: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
  };
}

/** Turns of the event loop enough for every promise a released ledger call sets off to settle. */
async function settle() {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
}

let db: ChatDb | undefined;
afterEach(() => {
  vi.useRealTimers();
  db?.close();
  db = undefined;
});

async function runSeed(seed: number): Promise<{ reads: number; failures: number; givenUps: number }> {
  const random = randomFrom(seed);
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-interleave-"), path: "data/agentsvc.db" });
  const real = db.usageLedger;
  let clock = random.pick(STARTS);
  const kind = random.pick(["service", "user", "gateway", "agent"] as const);
  const one = { tokens: 1 };
  const limits: BudgetLimits = random.pick([{ day: one }, { month: one }, { day: one, month: one }]);
  const budgets: BudgetsConfig =
    kind === "service"
      ? { service: limits }
      : kind === "user"
        ? { perUser: limits }
        : kind === "gateway"
          ? random.next() < 0.5
            ? { perGateway: limits }
            : { gateways: { g1: limits, g2: limits } }
          : random.next() < 0.5
            ? { perAgent: limits }
            : { agents: { a1: limits, a2: limits } };

  const rows = new Map<string, Row>();
  let seq = 0;
  const snapshots = new Map<string, Snapshot>();
  const violations: string[] = [];
  /**
   * Ledger calls waiting for the test: run (or fail) one when it says. A read the test hangs runs
   * only once the meter gave it up (or at shutdown); one given up sets no snapshot when it runs.
   */
  interface Held {
    what: "write" | "read";
    run(fail: boolean): Promise<void>;
    read?: { key: string; day: number; hung: boolean; givenUp: boolean };
  }
  const held: Held[] = [];
  const readTimeoutMs = random.pick(READ_TIMEOUTS);
  let givenUps = 0;
  let reads = 0;
  let failures = 0;

  const ledger: Pick<UsageLedger, "record" | "spendSplit"> = {
    record: (entries) =>
      new Promise<void>((resolve, reject) => {
        const list = Array.isArray(entries) ? entries : [entries];
        const mine = list.map((e) => rows.get(e.conversationId) as Row);
        for (const row of mine) {
          if (row.state !== "unsent") violations.push(`row ${row.seq} sent again (${row.state})`);
          row.state = "flight";
        }
        held.push({
          what: "write",
          run: async (fail) => {
            if (fail) {
              for (const row of mine) row.state = "failed";
              reject(new Error("the ledger is unreachable"));
              return;
            }
            await real.record(list);
            for (const row of mine) row.state = "landed";
            resolve();
          },
        });
      }),
    spendSplit: (scope, range) =>
      new Promise((resolve, reject) => {
        const read = { key: filterKey(scope), day: range.day, hung: false, givenUp: false };
        held.push({
          what: "read",
          read,
          run: async (fail) => {
            if (fail) {
              reject(new Error("the ledger is unreachable"));
              return;
            }
            const answer = await real.spendSplit(scope, range);
            // Counted as of this read: the ledger's rows and this instance's not in it.
            const counted = new Set<Row>();
            for (const row of rows.values())
              if (row.state === "landed" || (row.mine && (row.state === "unsent" || row.state === "flight")))
                counted.add(row);
            if (!read.givenUp) {
              snapshots.set(read.key, { seq, counted });
              reads++;
            }
            resolve(answer);
          },
        });
      }),
  };

  const refusals: string[] = [];
  /** A read failed or was given up since the last check: an admit may have thrown. */
  let readFailed = false;
  const meter = createSpendMeter({
    ledger,
    prices: { "openai/gpt-4o-mini": { input: 1, output: 2 } },
    budgets,
    logger: {
      warn: (facts: unknown, message?: string) => {
        if (message !== "budget spent: model call refused") return;
        const f = facts as { budget: string; name: string; period: string; tokens: number; cost: number };
        refusals.push(`${f.budget}:${f.name}:${f.period}:${f.tokens}:${f.cost}`);
      },
      error: (facts: unknown, message?: string) => {
        if (!message?.startsWith("the cost ledger did not answer a budget's read in time")) return;
        // The reads of that budget and day held now are the one given up (none when it was still
        // waiting for inserts) and older ones given up before.
        const f = facts as { budget: Kind; name: string; day: string };
        const filter = filterOf(f.budget, f.name);
        for (const call of held)
          if (call.read?.key === filterKey(filter) && new Date(call.read.day).toISOString() === f.day)
            call.read.givenUp = true;
        givenUps++;
        readFailed = true;
      },
    },
    now: () => clock,
    readTimeoutMs,
  });

  /** What a refusal of an admit at `at` must report: the scope's sums as of its last read. */
  const expected = (at: number, scope: MeterScope): string | undefined => {
    const check = checkFor(kind, scope);
    if (!check) return undefined;
    const snapshot = snapshots.get(filterKey(check.filter));
    if (!snapshot) return "no read";
    const starts = periodStarts(at);
    for (const period of ["day", "month"] as const) {
      if (!limits[period]) continue;
      let tokens = 0;
      let costNanos = 0;
      for (const row of rows.values()) {
        const counts = snapshot.counted.has(row) || (row.mine && row.seq > snapshot.seq);
        if (!counts || !inScope(row, check.filter) || row.at < starts[period]) continue;
        tokens += row.tokens;
        costNanos += row.costNanos;
      }
      if (tokens >= 1) return `${check.budget}:${check.name}:${period}:${tokens}:${costNanos / 1e9}`;
    }
    return undefined;
  };

  const pickScope = (): MeterScope => {
    const gateway = random.pick(GATEWAYS);
    return {
      userId: random.pick(USERS),
      agent: random.pick(AGENTS),
      conversationId: "",
      ...(gateway !== undefined ? { gateway } : {}),
    };
  };
  const addRow = (scope: MeterScope, input: number, output: number, mine: boolean): UsageEntry => {
    seq++;
    const row: Row = {
      seq,
      at: clock,
      userId: scope.userId,
      gateway: scope.gateway ?? null,
      agent: scope.agent,
      tokens: input + output,
      costNanos: input * 1_000 + output * 2_000,
      mine,
      state: mine ? "unsent" : "landed",
    };
    rows.set(`c${seq}`, row);
    return {
      at: clock,
      userId: scope.userId,
      gateway: scope.gateway ?? null,
      agent: scope.agent,
      conversationId: `c${seq}`,
      provider: "openai",
      model: "gpt-4o-mini",
      kind: "turn",
      outcome: "ok",
      inputTokens: input,
      outputTokens: output,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      costNanos: row.costNanos,
    };
  };

  interface Asked {
    at: number;
    scope: MeterScope;
    outcome?: { refused: boolean } | { threw: unknown };
  }
  let asked: Asked[] = [];
  const log: string[] = [];

  const step = async (s: number) => {
    const roll = random.next();
    if (roll < 0.3) {
      const scope = pickScope();
      const input = 1 + random.int(50);
      const output = random.int(20);
      const { conversationId } = addRow(scope, input, output, true);
      log.push(`${s} record ${conversationId} ${input + output}`);
      meter.record({
        scope: { ...scope, conversationId },
        kind: "turn",
        provider: "openai",
        modelId: "gpt-4o-mini",
        outcome: "ok",
        usage: { inputTokens: input, outputTokens: output },
      });
    } else if (roll < 0.5) {
      const a: Asked = { at: clock, scope: pickScope() };
      log.push(`${s} admit ${JSON.stringify(a.scope)}`);
      asked.push(a);
      meter.admit(a.scope, "turn").then(
        (r) => {
          a.outcome = { refused: r !== undefined };
        },
        (err: unknown) => {
          a.outcome = { threw: err };
        },
      );
    } else if (roll < 0.65) {
      const ms = random.pick([1, 30, 99, 100, 250, 1_000, 1_200]);
      log.push(`${s} tick ${ms}`);
      clock += ms;
      vi.advanceTimersByTime(ms);
    } else if (roll < 0.87) {
      // Hung reads run only once given up: their answer comes late.
      const ready = held.filter((c) => !c.read?.hung || c.read.givenUp);
      if (ready.length === 0) return;
      const call = ready[random.int(ready.length)]!;
      held.splice(held.indexOf(call), 1);
      const fail = random.next() < (call.what === "write" ? 0.15 : 0.1);
      log.push(`${s} ${call.what} ${fail ? "fails" : "runs"}`);
      if (fail) failures++;
      if (fail && call.what === "read") readFailed = true;
      await call.run(fail);
    } else if (roll < 0.9) {
      const reads = held.filter((c) => c.read && !c.read.hung);
      if (reads.length === 0) return;
      const call = reads[random.int(reads.length)]!;
      log.push(`${s} read hangs`);
      call.read!.hung = true;
    } else if (roll < 0.93) {
      log.push(`${s} flush`);
      void meter.flush();
    } else {
      const scope = pickScope();
      const entry = addRow(scope, 1 + random.int(50), 0, false);
      log.push(`${s} other instance ${entry.conversationId} ${entry.inputTokens}`);
      await real.record(entry);
    }
  };

  /** Every admit answered since the last step: its refusal's sums as of the scope's last read. */
  const checkAnswers = (s: number) => {
    const answered = asked.filter((a) => a.outcome !== undefined);
    asked = asked.filter((a) => a.outcome === undefined);
    const want: string[] = [];
    for (const a of answered) {
      if (a.outcome && "threw" in a.outcome) {
        if (!readFailed) violations.push(`admit threw without a failed read: ${String(a.outcome.threw)}`);
        continue;
      }
      const sums = expected(a.at, a.scope);
      if (sums !== undefined) want.push(sums);
    }
    const got = refusals.splice(0);
    readFailed = false;
    const where = `seed ${seed} step ${s} (budgets ${JSON.stringify(budgets)})\n${log.slice(-40).join("\n")}`;
    expect(violations, where).toEqual([]);
    expect(got.sort(), where).toEqual(want.sort());
  };

  for (let s = 0; s < STEPS; s++) {
    await step(s);
    await settle();
    checkAnswers(s);
  }
  // Shutdown: every ledger call runs, every admit is answered, every row is in the ledger once or lost.
  const flushed = meter.flush();
  let done = false;
  void flushed.then(() => {
    done = true;
  });
  for (let turns = 0; !done || held.length > 0 || asked.length > 0; turns++) {
    expect(turns, `seed ${seed}: shutdown never ends`).toBeLessThan(1_000);
    const call = held.shift();
    if (call) await call.run(false);
    await settle();
    checkAnswers(STEPS);
    if (!call && !done && held.length === 0) await meter.flush();
  }
  const mine = [...rows.values()].filter((r) => r.mine);
  expect(mine.filter((r) => r.state !== "landed" && r.state !== "failed")).toEqual([]);
  const inLedger = await real.totals({ since: 0 });
  expect(inLedger.calls).toBe([...rows.values()].filter((r) => r.state === "landed").length);
  vi.useRealTimers();
  db.close();
  db = undefined;
  return { reads, failures, givenUps };
}

describe("the spend meter's reads and writes interleaved at random", () => {
  it(`counts each row once in every budget's sums, over ${SEEDS} seeded runs of ${STEPS} steps`, async () => {
    let reads = 0;
    let failures = 0;
    let givenUps = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const run = await runSeed(seed);
      reads += run.reads;
      failures += run.failures;
      givenUps += run.givenUps;
    }
    // The runs did interleave: reads ran, ledger calls failed and reads were given up.
    expect(reads).toBeGreaterThan(SEEDS);
    expect(failures).toBeGreaterThan(SEEDS / 10);
    expect(givenUps).toBeGreaterThan(SEEDS / 10);
  }, 600_000);
});
