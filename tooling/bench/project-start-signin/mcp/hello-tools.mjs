import { defineTool } from "@agentsvc/agent-core";
import { defineToolServer } from "@agentsvc/mcp";
import * as v from "valibot";

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
