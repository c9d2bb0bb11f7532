// A budget's sums (usage-sums.ts) kept apart per scope, and which read a call makes: the settled
// read (the period's rows before the cutoff) or only the rows since the cutoff. Found by `pnpm mutate
// chat-store src/usage-sums.ts` (#45): the tests read one scope of each kind, so two users (or a
// user "" and the whole service) sharing one settled part failed nothing, and no test counted the
// settled reads a refresh must not make, nor saw the clock go back. Real stores; the ledger's
// spendSplit is wrapped only to tell its settled reads (from the month's start) from refreshes.
import { describe, expect, it } from "vitest";
import type { ChatDb } from "../src/index.js";
import { MARGIN_MS, type UsageScope, UsageSums } from "../src/index.js";
import { eachDriver, openStore, tempRoot } from "./helpers.js";
import { usageEntry } from "./usage-entry.js";

const AT = Date.UTC(2026, 5, 10, 12);
const STARTS = { day: Date.UTC(2026, 5, 10), month: Date.UTC(2026, 5, 1) };

const entry = usageEntry;

/** `tokens` spent in both periods (every row here is of this day), at 27,000 nanos a 120 tokens. */
const spent = (tokens: number) => ({
  day: { tokens, costNanos: (tokens / 120) * 27_000 },
  month: { tokens, costNanos: (tokens / 120) * 27_000 },
});

/** Sums over `db`'s ledger, with the settled reads it made (a spendSplit from the month's start). */
function counted(db: ChatDb) {
  const settledReads: number[] = [];
  const sums = new UsageSums({
    spendSplit: (scope, range) => {
      if (range.from !== range.cutoff) settledReads.push(range.cutoff);
      return db.usageLedger.spendSplit(scope, range);
    },
  });
  return { sums, settledReads };
}

eachDriver((driver) => {
  describe("a budget's sums per scope", () => {
    it("of two users, two gateways, two agents, and a user, gateway or agent with an empty id, are each their own, never another scope's", async () => {
      const db = await driver.open({ appRoot: tempRoot() });
      await db.usageLedger.record([
        entry(AT - 60 * 60_000, { userId: "u1", gateway: "g1", agent: "a1" }),
        entry(AT - 60 * 60_000, {
          userId: "u2",
          gateway: "g2",
          agent: "a2",
          inputTokens: 220,
          costNanos: 54_000,
        }),
        entry(AT - 60 * 60_000, { userId: "", gateway: "", agent: "", inputTokens: 340, costNanos: 81_000 }),
      ]);
      const sums = new UsageSums(db.usageLedger);
      const scopes: [UsageScope, number][] = [
        [{ userId: "u1" }, 120],
        [{ userId: "u2" }, 240],
        [{ userId: "" }, 360],
        [{}, 720],
        [{ gateway: "g1" }, 120],
        [{ gateway: "g2" }, 240],
        [{ gateway: "" }, 360],
        [{ agent: "a1" }, 120],
        [{ agent: "a2" }, 240],
        [{ agent: "" }, 360],
      ];
      // Twice round: the second read of each is a refresh on its own settled part.
      for (const round of [1, 2])
        for (const [scope, tokens] of scopes)
          expect(
            await sums.read(scope, STARTS, AT + round),
            `${JSON.stringify(scope)} round ${round}`,
          ).toEqual(spent(tokens));
    });

    it("reread the settled part when the clock went back, but not for a read at the same time or later within the rebase", async () => {
      const appRoot = tempRoot();
      const db = await driver.open({ appRoot });
      const other = await driver.open({ appRoot });
      const { sums, settledReads } = counted(db);
      await other.usageLedger.record(entry(AT - 60 * 60_000));
      expect(await sums.read({}, STARTS, AT)).toEqual(spent(120));
      // Written late by another instance, its time before the cutoff: counted from the next settled read.
      await other.usageLedger.record(entry(AT - MARGIN_MS - 1_000));
      expect(await sums.read({}, STARTS, AT)).toEqual(spent(120));
      expect(await sums.read({}, STARTS, AT + 1_000)).toEqual(spent(120));
      expect(settledReads).toEqual([AT - MARGIN_MS]);
      // This instance's clock stepped back: the settled part is read again, from the new cutoff.
      expect(await sums.read({}, STARTS, AT - 1)).toEqual(spent(240));
      expect(settledReads).toEqual([AT - MARGIN_MS, AT - 1 - MARGIN_MS]);
    });
  });
});

describe("[sqlite] a budget's settled parts in memory", () => {
  it("are kept for each scope read while others are read, up to 10,000 scopes; the next one starts the memory again", async () => {
    const db = openStore({ appRoot: tempRoot() });
    const { sums, settledReads } = counted(db);
    const user = (i: number): UsageScope => ({ userId: `u${i}` });
    for (let i = 0; i < 10_000; i++) await sums.read(user(i), STARTS, AT);
    expect(settledReads).toHaveLength(10_000);
    // All 10,000 kept: read again, each is a refresh.
    for (const i of [0, 1, 5_000, 9_999]) await sums.read(user(i), STARTS, AT + 1);
    expect(settledReads).toHaveLength(10_000);
    // One more scope: the memory starts again with it, and a scope read before is read settled again.
    await sums.read(user(10_000), STARTS, AT + 2);
    await sums.read(user(10_000), STARTS, AT + 3);
    expect(settledReads).toHaveLength(10_001);
    await sums.read(user(0), STARTS, AT + 4);
    expect(settledReads).toHaveLength(10_002);
  }, 120_000);
});
