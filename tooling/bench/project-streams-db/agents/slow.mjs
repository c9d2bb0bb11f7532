import { defineAgent } from "@agentsvc/agent-core";

// The streams agent with the default memory (database): each stream's end commits its turn.
export const TOKENS = Array.from({ length: 20 }, (_, i) => `t${i} `).join("");

export default defineAgent({
  name: "slow",
  model: { provider: "demo", tokenDelayMs: 1000, script: [{ text: TOKENS }] },
  memory: { type: "database" },
});
