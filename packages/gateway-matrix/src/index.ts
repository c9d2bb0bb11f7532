export { createGateway, MatrixGateway, type MatrixGatewayOptions, MESSAGE_LIMIT } from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, type MatrixEntry } from "./schema.js";
