export {
  createDiscordGateway,
  DISCORD_MESSAGE_LIMIT,
  DiscordGateway,
  type DiscordGatewayOptions,
} from "./discord-gateway.js";
export { createDiscordGateway as createGateway } from "./discord-gateway.js";
export { customId, FATAL_CLOSE, inboundOf, NEW_SESSION_CLOSE, parseCustomId } from "./events.js";
export { SESSION_KEY, type StoredSession } from "./gateway-socket.js";
export { DiscordRest } from "./rest.js";
