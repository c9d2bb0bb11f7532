export { createGateway, DiscordGateway, type DiscordGatewayOptions, MESSAGE_LIMIT } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { type DiscordEntry, entrySchema } from "./schema.js";
