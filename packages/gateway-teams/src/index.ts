export {
  createGateway,
  MESSAGE_LIMIT,
  TeamsGateway,
  type TeamsGatewayOptions,
} from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export {
  DEFAULT_LOGIN_BASE_URL,
  DEFAULT_OPENID_METADATA_URL,
  DEFAULT_SERVICE_URL,
  DEFAULT_TENANT_ID,
  entrySchema,
  type TeamsEntry,
} from "./schema.js";
