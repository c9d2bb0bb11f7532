import { defineAgent } from "@agentsvc/agent-core";

// No token delay; durable memory (the default): every turn is persisted to PostgreSQL.
export default defineAgent({
  name: "bench",
  model: { provider: "demo", tokenDelayMs: 0 },
});
