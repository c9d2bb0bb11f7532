export {
  createGateway,
  DEFAULT_API_BASE_URL,
  GithubGateway,
  type GithubGatewayOptions,
  MESSAGE_LIMIT,
} from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, type GithubEntry } from "./schema.js";
