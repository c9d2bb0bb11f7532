export {
  createGateway,
  GithubGateway,
  type GithubGatewayOptions,
  MESSAGE_LIMIT,
} from "./gateway.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { DEFAULT_API_BASE_URL, entrySchema, type GithubEntry } from "./schema.js";
