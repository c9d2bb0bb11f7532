export {
  createGateway,
  DEFAULT_API_BASE_URL,
  GithubGateway,
  type GithubGatewayOptions,
  MESSAGE_LIMIT,
} from "./gateway.js";
