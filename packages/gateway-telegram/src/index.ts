export { createGateway, MESSAGE_LIMIT, TelegramGateway, type TelegramGatewayOptions } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, type TelegramEntry } from "./schema.js";
