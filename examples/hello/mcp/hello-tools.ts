import { defineTool } from "@agentsvc/agent-core";
import { defineToolServer } from "@agentsvc/mcp";
import * as v from "valibot";

// A local tool server: the agent uses it by name, and gateways/tools.yaml serves it over MCP.
export default defineToolServer({
  name: "hello-tools",
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      input: v.object({ a: v.number(), b: v.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    }),
  ],
});
