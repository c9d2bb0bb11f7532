export { createGateway, MESSAGE_LIMIT, TwilioGateway, type TwilioGatewayOptions } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { DEFAULT_API_BASE_URL, entrySchema, type TwilioEntry } from "./schema.js";
