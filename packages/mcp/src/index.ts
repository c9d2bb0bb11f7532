export {
  type AnyToolDefinition,
  defineToolServer,
  isToolServerDefinition,
  type ToolServerDefinition,
  type ToolServerInput,
} from "./define-tool-server.js";
export { type McpRoute, type McpRouteOptions, mcpRoute } from "./mcp-route.js";
export {
  type ResolvedToolServers,
  type ResolveToolServersOptions,
  resolveToolServers,
} from "./resolve-tool-servers.js";
export { type PreparedInput, prepareToolInput } from "./tool-input.js";
