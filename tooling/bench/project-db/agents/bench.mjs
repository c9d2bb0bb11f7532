import { defineAgent } from "@agentsvc/agent-core";

// The bench agent with the default memory (database): every turn commits to the SQLite store.
export default defineAgent({
  name: "bench",
  model: { provider: "demo", tokenDelayMs: 0 },
  memory: { type: "database" },
});
