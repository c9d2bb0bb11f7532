export { agentInfo, agentRoutes, type AgentRoutesOptions, type DescribedAgent } from "./agent-routes.js";
export {
  createAgentHandlers,
  DEFAULT_USER_ID,
  type AgentHandlerOptions,
  type AgentHandlers,
  type AgentInfoBody,
  type TurnContext,
} from "./handlers.js";
export { directStreams, streamRun } from "./sse.js";
export { agentThreadScope } from "./thread-scope.js";
export { apiKeyGate, apiKeyMatches } from "./api-key.js";
export { errorBody, errorResponse, type ErrorBody } from "./errors.js";
export {
  batchInputs,
  conversationIdOf,
  DEFAULT_BODY_LIMIT,
  MAX_BATCH,
  MAX_MESSAGE_CHARS,
  optionalThreadId,
  readJsonObject,
  requiredInput,
} from "./body.js";
export {
  allowedHostsGuard,
  defaultAllowedHosts,
  hostAllowed,
  hostName,
  LOOPBACK_HOSTS,
} from "./allowed-hosts.js";
