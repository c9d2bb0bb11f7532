export { createGateway, MESSAGE_LIMIT, WhatsappGateway, type WhatsappGatewayOptions } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { scheduleTarget } from "./schedule-target.js";
export { DEFAULT_API_BASE_URL, DEFAULT_API_VERSION, entrySchema, type WhatsappEntry } from "./schema.js";
