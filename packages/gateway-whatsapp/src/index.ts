export { createGateway, MESSAGE_LIMIT, WhatsappGateway, type WhatsappGatewayOptions } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, type WhatsappEntry } from "./schema.js";
