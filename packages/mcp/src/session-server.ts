import type { ToolContext } from "@agentsvc/agent-core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyToolDefinition, ToolServerDefinition } from "./define-tool-server.js";
import { sdkServer, sdkTypes } from "./sdk.js";
import { prepareToolInput } from "./tool-input.js";
import { errorMessage, toCallToolResult, toolErrorResult } from "./tool-result.js";

/** Callbacks a session uses to tell the registry a tool call is running (it is not idle then). */
export interface ToolCallHooks {
  started(): void;
  ended(): void;
}

/** What every session of one tool server shares: the tool list is computed once. */
export interface ToolCatalog {
  definition: ToolServerDefinition;
  listing: Tool[];
  byName: Map<string, AnyToolDefinition>;
}

export function buildCatalog(definition: ToolServerDefinition): ToolCatalog {
  const byName = new Map<string, AnyToolDefinition>();
  const listing: Tool[] = [];
  for (const tool of definition.tools) {
    byName.set(tool.name, tool);
    listing.push({
      name: tool.name,
      description: tool.description,
      inputSchema: prepareToolInput(tool).jsonSchema,
    });
  }
  return { definition, listing, byName };
}

/**
 * One MCP `Server` per session (the SDK binds a Server to one transport). Identity is fixed on
 * the server side: a caller of the exposure is user "mcp", and the session is its conversation.
 */
export function createSessionServer(catalog: ToolCatalog, hooks: ToolCallHooks): Server {
  const { Server } = sdkServer();
  const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = sdkTypes();
  const { definition } = catalog;
  const server = new Server(
    { name: definition.name, version: definition.version ?? "0.1.0" },
    {
      capabilities: { tools: {} },
      ...(definition.description ? { instructions: definition.description } : {}),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.listing }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const tool = catalog.byName.get(name);
    if (!tool) {
      // Unknown names are protocol errors in the MCP spec; bad arguments are tool errors (below).
      const known = [...catalog.byName.keys()].join(", ") || "none";
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${name}" on tool server "${definition.name}" (tools: ${known})`,
      );
    }
    hooks.started();
    try {
      const checked = await prepareToolInput(tool).check(request.params.arguments);
      if (!checked.ok) return toolErrorResult(`Invalid input for tool "${name}": ${checked.message}`);
      const session = extra.sessionId ?? "stateless";
      const ctx: ToolContext = {
        threadId: `mcp:${session}`,
        userId: "mcp",
        conversationId: `mcp:${session}`,
        signal: extra.signal,
      };
      return toCallToolResult(await tool.execute(checked.value, ctx));
    } catch (error) {
      return toolErrorResult(errorMessage(error));
    } finally {
      hooks.ended();
    }
  });

  return server;
}
