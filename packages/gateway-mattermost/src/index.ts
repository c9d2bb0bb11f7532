export { createGateway, MattermostGateway, type MattermostGatewayOptions, MESSAGE_LIMIT } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, type MattermostEntry } from "./schema.js";
