export { createGateway, DiscordGateway, type DiscordGatewayOptions, MESSAGE_LIMIT } from "./gateway.js";
