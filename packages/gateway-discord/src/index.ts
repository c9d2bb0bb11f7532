export {
  createDiscordGateway,
  DISCORD_MESSAGE_LIMIT,
  DiscordGateway,
  type DiscordGatewayOptions,
} from "./gateway.js";
export { createDiscordGateway as createGateway } from "./gateway.js";
export {
  CREDENTIALS_CLOSE,
  FATAL_CLOSE,
  NEW_SESSION_CLOSE,
  SESSION_KEY,
  type StoredSession,
} from "./connection.js";
export { DiscordRest } from "./api.js";
