// The cost ledger on both dialects: rows written on one instance are summed on another, filtered
// by time, user, gateway and agent, and grouped for `agentsvc usage`.
import { describe, expect, it } from "vitest";
import type { UsageEntry } from "../src/index.js";
import { eachDriver, tempRoot } from "./helpers.js";
import { usageEntry } from "./usage-entry.js";

const DAY = 86_400_000;

const entry = (over: Partial<UsageEntry>): UsageEntry => usageEntry(Date.now(), { gateway: null, ...over });

eachDriver((driver) => {
  describe("usage ledger", () => {
    it("sums what another instance recorded, only from `since` and for the filtered user, gateway or agent", async () => {
      const appRoot = tempRoot();
      const a = await driver.open({ appRoot });
      const b = await driver.open({ appRoot });
      const now = Date.now();
      await a.usageLedger.record(entry({ at: now - 2 * DAY, inputTokens: 1_000, costNanos: 1 }));
      await a.usageLedger.record(entry({ gateway: "whatsapp", userId: "+15550001" }));
      await a.usageLedger.record(entry({ outcome: "rate_limited", outputTokens: 0, costNanos: 15_000 }));
      await a.usageLedger.record(
        entry({ kind: "compaction", agent: "helper", cachedInputTokens: 40, reasoningTokens: 5 }),
      );
      const since = now - DAY;
      expect(await b.usageLedger.totals({ since })).toEqual({
        calls: 3,
        inputTokens: 300,
        outputTokens: 40,
        cachedInputTokens: 40,
        cacheWriteInputTokens: 0,
        reasoningTokens: 5,
        costNanos: 69_000,
      });
      expect((await b.usageLedger.totals({ since, userId: "u1" })).calls).toBe(2);
      expect((await b.usageLedger.totals({ since, gateway: "whatsapp" })).inputTokens).toBe(100);
      expect((await b.usageLedger.totals({ since, agent: "helper" })).reasoningTokens).toBe(5);
      expect((await b.usageLedger.totals({ since: now - 3 * DAY })).inputTokens).toBe(1_300);
      expect(await b.usageLedger.totals({ since: now + DAY })).toMatchObject({ calls: 0, costNanos: 0 });
    });

    it("records and sums each call's prompt-cache writes (absent: 0), one by one and several in one insert", async () => {
      const db = await driver.open();
      const anthropic = { provider: "anthropic", model: "claude-sonnet-4-5" };
      await db.usageLedger.record(entry({ ...anthropic, inputTokens: 2_050, cacheWriteInputTokens: 2_000 }));
      await db.usageLedger.record([
        entry({ ...anthropic, inputTokens: 2_100, cachedInputTokens: 2_000, cacheWriteInputTokens: 60 }),
        entry({ inputTokens: 100 }),
      ]);
      const since = Date.now() - DAY;
      expect(await db.usageLedger.totals({ since })).toMatchObject({
        calls: 3,
        inputTokens: 4_250,
        cachedInputTokens: 2_000,
        cacheWriteInputTokens: 2_060,
      });
      expect(
        (await db.usageLedger.byGroup("model", since)).map((r) => [r.key, r.cacheWriteInputTokens]),
      ).toEqual([
        ["anthropic/claude-sonnet-4-5", 2_060],
        ["openai/gpt-4o-mini", 0],
      ]);
    });

    it("groups by user, gateway (the chat page and agent route as the empty name), agent and provider/model", async () => {
      const db = await driver.open();
      await db.usageLedger.record(entry({ gateway: "telegram", userId: "t1", costNanos: 5 }));
      await db.usageLedger.record(entry({ gateway: "telegram", userId: "t1", costNanos: 7 }));
      await db.usageLedger.record(entry({ model: "claude-haiku", provider: "anthropic", costNanos: 100 }));
      const since = Date.now() - DAY;
      const byUser = await db.usageLedger.byGroup("user", since);
      expect(byUser.map((r) => [r.key, r.calls, r.costNanos])).toEqual([
        ["u1", 1, 100],
        ["t1", 2, 12],
      ]);
      expect((await db.usageLedger.byGroup("gateway", since)).map((r) => r.key)).toEqual(["", "telegram"]);
      expect((await db.usageLedger.byGroup("model", since)).map((r) => r.key)).toEqual([
        "anthropic/claude-haiku",
        "openai/gpt-4o-mini",
      ]);
      expect((await db.usageLedger.byGroup("agent", since)).map((r) => [r.key, r.calls])).toEqual([
        ["root", 3],
      ]);
    });
  });
});
