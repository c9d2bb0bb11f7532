import { defineAgent } from "@agentsvc/agent-core";

// Ten tokens, 50 ms apart: a stream lasts about half a second, so a soak run turns over many
// thousands of them. Memory type from SOAK_MEMORY (database, the default, or window).
export default defineAgent({
  name: "soak",
  model: {
    provider: "demo",
    tokenDelayMs: 50,
    script: [{ text: Array.from({ length: 10 }, (_, i) => `w${i} `).join("") }],
  },
  memory: { type: process.env.SOAK_MEMORY === "window" ? "window" : "database" },
});
