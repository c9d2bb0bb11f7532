export { createGateway, MESSAGE_LIMIT, TwilioGateway, type TwilioGatewayOptions } from "./gateway.js";
