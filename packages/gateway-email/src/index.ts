export {
  createGateway,
  EmailGateway,
  type EmailGatewayOptions,
  MESSAGE_LIMIT,
} from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { scheduleTarget } from "./schedule-target.js";
export { EMAIL_DEFAULTS, type EmailEntry, entrySchema } from "./schema.js";
