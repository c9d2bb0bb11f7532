// A budget's day and month sums from a settled part and the rows since its cutoff (usage-sums.ts),
// on both dialects: equal to a full re-read of the ledger at every read, across a day's and a
// month's end, with another instance (a second store on the same data) recording meanwhile; and
// what happens to a row written later than the margin. Fake clock: the times are the rows' `at`.
import { describe, expect, it } from "vitest";
import { MARGIN_MS, REBASE_MS, type UsageScope, UsageSums } from "../src/index.js";
import { eachDriver, tempRoot } from "./helpers.js";
import { usageEntry } from "./usage-entry.js";

const MINUTE = 60_000;

const entry = usageEntry;

function startsOf(at: number) {
  const d = new Date(at);
  return {
    day: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()),
    month: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
  };
}

const SCOPES: UsageScope[] = [{}, { userId: "u1" }, { gateway: "g2" }, { agent: "helper" }];

eachDriver((driver) => {
  describe("a budget's sums", () => {
    it("equal a full re-read of the ledger at every read across a day's and a month's end, another instance's calls included from the next read", async () => {
      const appRoot = tempRoot();
      const here = await driver.open({ appRoot });
      const other = await driver.open({ appRoot });
      const sums = new UsageSums(here.usageLedger);
      // Before the windows: last month's and earlier today's rows.
      await other.usageLedger.record([
        entry(Date.UTC(2026, 0, 12), { inputTokens: 7_000 }),
        entry(Date.UTC(2026, 0, 30, 9), { userId: "u2", gateway: "g2", costNanos: 5 }),
      ]);
      let n = 0;
      // A day's end (Jan 30 -> 31), then the month's (Jan 31 -> Feb 1): a read every 61 s, each
      // after calls here and on the other instance, the other's written up to two minutes late.
      // Started off the minute so that the first read of a period is a refresh, not a settled read.
      for (const from of [Date.UTC(2026, 0, 30, 23, 33), Date.UTC(2026, 0, 31, 23, 33)]) {
        for (let at = from; at < from + 60 * MINUTE; at += 61_000) {
          n++;
          await here.usageLedger.record(
            entry(at - 1_000, { agent: n % 3 === 0 ? "helper" : "root", inputTokens: n, costNanos: n * 7 }),
          );
          await other.usageLedger.record([
            entry(at - 2 * MINUTE + (n % 5) * 1_000, {
              userId: `u${n % 2}`,
              gateway: `g${n % 3}`,
              outputTokens: n,
            }),
          ]);
          for (const scope of SCOPES) {
            const starts = startsOf(at);
            const full = async (since: number) => {
              const t = await here.usageLedger.totals({ since, ...scope });
              return { tokens: t.inputTokens + t.outputTokens, costNanos: t.costNanos };
            };
            const where = `${JSON.stringify(scope)} at ${new Date(at).toISOString()}`;
            expect(await sums.read(scope, starts, at), where).toEqual({
              day: await full(starts.day),
              month: await full(starts.month),
            });
          }
        }
      }
    }, 120_000);

    it("count a row written after the settled part was read, with its time before the cutoff, from the next settled read", async () => {
      const appRoot = tempRoot();
      const here = await driver.open({ appRoot });
      const other = await driver.open({ appRoot });
      const sums = new UsageSums(here.usageLedger);
      const at = Date.UTC(2026, 5, 10, 12);
      const starts = startsOf(at);
      await other.usageLedger.record(entry(at - 60 * MINUTE));
      const spent = (tokens: number) => ({
        day: { tokens, costNanos: (tokens / 120) * 27_000 },
        month: { tokens, costNanos: (tokens / 120) * 27_000 },
      });
      expect(await sums.read({}, starts, at)).toEqual(spent(120));
      // Within the margin: the next read has it. Before the cutoff: only the next settled read.
      await other.usageLedger.record(entry(at - MARGIN_MS + 1_000));
      await other.usageLedger.record(entry(at - MARGIN_MS - 1_000));
      expect(await sums.read({}, starts, at + 1_000)).toEqual(spent(240));
      expect(await sums.read({}, starts, at + REBASE_MS - 1)).toEqual(spent(240));
      expect(await sums.read({}, starts, at + REBASE_MS)).toEqual(spent(360));
    });
  });
});
