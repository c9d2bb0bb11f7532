import { defineAgent } from "@agentsvc/agent-core";

// No token delay: the benchmark measures what agentsvc adds around the same model.
export default defineAgent({
  name: "bench",
  model: { provider: "demo", tokenDelayMs: 0 },
  memory: { type: "window", maxMessages: 20 },
});
