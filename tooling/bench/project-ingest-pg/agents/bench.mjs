import { defineAgent } from "@agentsvc/agent-core";

// No token delay and the default (database) memory: each accepted event starts a turn whose
// memory, inbox state and reply row are committed to the store.
export default defineAgent({
  name: "bench",
  model: { provider: "demo", tokenDelayMs: 0 },
});
