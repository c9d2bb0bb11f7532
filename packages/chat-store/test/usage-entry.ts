import type { UsageEntry } from "../src/index.js";

/** A ledger row of one 120-token turn of user u1 on gateway g1 (27,000 nanos), `over` changing any part. */
export function usageEntry(at: number, over: Partial<UsageEntry> = {}): UsageEntry {
  return {
    at,
    userId: "u1",
    gateway: "g1",
    agent: "root",
    conversationId: "c1",
    provider: "openai",
    model: "gpt-4o-mini",
    kind: "turn",
    outcome: "ok",
    inputTokens: 100,
    outputTokens: 20,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    costNanos: 27_000,
    ...over,
  };
}
