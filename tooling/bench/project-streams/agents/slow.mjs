import { defineAgent } from "@agentsvc/agent-core";

// Twenty tokens at one per second: every stream of the benchmark stays open ~20 s.
export const TOKENS = Array.from({ length: 20 }, (_, i) => `t${i} `).join("");

export default defineAgent({
  name: "slow",
  model: { provider: "demo", tokenDelayMs: 1000, script: [{ text: TOKENS }] },
  memory: { type: "window", maxMessages: 20 },
});
