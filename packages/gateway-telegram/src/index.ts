export { createGateway, MESSAGE_LIMIT, TelegramGateway, type TelegramGatewayOptions } from "./gateway.js";
