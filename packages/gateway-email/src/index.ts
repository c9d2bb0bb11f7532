export {
  createGateway,
  EMAIL_DEFAULTS,
  EmailGateway,
  type EmailGatewayOptions,
  MESSAGE_LIMIT,
} from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { type EmailEntry, entrySchema } from "./schema.js";
