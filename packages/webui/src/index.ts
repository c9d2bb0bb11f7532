export { apiPrefix, createChatUi, type ChatUiOptions } from "./app.js";
export { API_KEY_HEADER, keyMatches } from "./api-key.js";
export { MAX_BODY_BYTES } from "./body.js";
export { SESSION_COOKIE } from "./cookies.js";
export { SHARED_USER_ID, defaultIdentityResolver, sharedUserIdOf } from "./identity.js";
export { DEFAULT_KEEP_RECENT } from "./routes/memory.js";
export type { AgentInfo, ChatUiEntry, Identity, IdentityResolver, ToolInfo } from "./types.js";
export { agentInfoOf } from "./types.js";
export { ScopedRuns, threadScope } from "./thread-scope.js";
