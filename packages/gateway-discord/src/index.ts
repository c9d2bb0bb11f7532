export {
  createDiscordGateway,
  DISCORD_MESSAGE_LIMIT,
  DiscordGateway,
  type DiscordGatewayOptions,
} from "./gateway.js";
export { createDiscordGateway as createGateway } from "./gateway.js";
export { customId, FATAL_CLOSE, inboundOf, NEW_SESSION_CLOSE, parseCustomId } from "./inbound.js";
export { SESSION_KEY, type StoredSession } from "./connection.js";
export { DiscordRest } from "./api.js";
