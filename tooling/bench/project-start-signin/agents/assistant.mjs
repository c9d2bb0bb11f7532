// examples/hello's agent (demo model, two tools, the local MCP tool server) for `pnpm bench start`'s
// sign-in row.
import { defineAgent, defineTool } from "@agentsvc/agent-core";
import * as v from "valibot";

const clock = defineTool({
  name: "clock",
  description: "Tells the current time in UTC.",
  input: v.object({}),
  execute: () => ({ utc: new Date().toISOString() }),
});

export default defineAgent({
  name: "hello",
  model: { provider: "demo", tokenDelayMs: 12 },
  instructions: "You are a friendly assistant. Use tools when they help.",
  tools: [clock],
  toolServers: ["hello-tools"],
  memory: { type: "database", summaryProvider: "demo", summaryModel: "agentsvc-demo", summaryThreshold: 200 },
});
