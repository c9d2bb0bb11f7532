export { createGateway, MESSAGE_LIMIT, WhatsappGateway, type WhatsappGatewayOptions } from "./gateway.js";
