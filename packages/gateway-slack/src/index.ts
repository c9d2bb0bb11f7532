export { ANSWERED_THREADS_LIMIT } from "./answered-threads.js";
export { markdownToMrkdwn } from "./format.js";
export { createGateway, MESSAGE_LIMIT, SlackGateway, type SlackGatewayOptions } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, type SlackEntry } from "./schema.js";
