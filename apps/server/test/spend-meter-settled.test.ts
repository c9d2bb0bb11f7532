// A budget read as a settled part plus the rows since its cutoff (chat-store usage-sums.ts) refuses
// exactly where a full sum did: at its bound, whichever part the spend is in, and across the
// settled part's next read. Two meters over one real SQLite store stand for two instances.
import type { MeterScope } from "@agentsvc/agent-core";
import { ChatDb, MARGIN_MS, REBASE_MS } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { createSpendMeter } from "../src/spend-meter.js";

const NOW = Date.UTC(2026, 11, 15, 13, 30);
const ann: MeterScope = { agent: "bot", userId: "ann", conversationId: "c1", gateway: "whatsapp" };

let db: ChatDb | undefined;
afterEach(() => db?.close());

describe("a month's budget over the settled part and the recent rows", () => {
  it("admits at 999 of 1,000 tokens and refuses at 1,000, the spend split between the parts, and again after the settled part is read anew", async () => {
    db = ChatDb.open({ appRoot: testTempDir("agentsvc-spend-settled-"), path: "data/agentsvc.db" });
    let now = NOW - 60 * 60_000;
    const meter = () =>
      createSpendMeter({
        ledger: (db as ChatDb).usageLedger,
        budgets: { service: { month: { tokens: 1_000 } } },
        logger: { warn: () => {}, error: () => {} },
        now: () => now,
      });
    const here = meter();
    const other = meter();
    const spend = async (tokens: number) => {
      other.record({
        scope: ann,
        kind: "turn",
        provider: "openai",
        modelId: "gpt-4o-mini",
        outcome: "ok",
        usage: { inputTokens: tokens, outputTokens: 0 },
      });
      await other.flush();
    };
    // An hour ago (settled), then since the cutoff (recent).
    await spend(600);
    now = NOW;
    expect(await here.admit(ann, "turn")).toBeUndefined();
    now = NOW + MARGIN_MS / 2;
    await spend(399);
    now += 1_000;
    expect(await here.admit(ann, "turn")).toBeUndefined();
    await spend(1);
    now += 1_000;
    expect(await here.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
    now = NOW + REBASE_MS;
    expect(await here.admit(ann, "turn")).toMatchObject({ code: "budget_exceeded" });
  });
});
