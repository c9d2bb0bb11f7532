export {
  COMMENT_LIMIT,
  createGithubGateway,
  createGithubGateway as createGateway,
  DEFAULT_API_BASE_URL,
  GithubGateway,
  type GithubGatewayOptions,
} from "./github-gateway.js";
export { isOwnComment, mentionedText, POSTED_MARKER } from "./mention.js";
export { hubSignature, verifyHubSignature } from "@agentsvc/webhook-kit";
export { parseThreadId, threadId } from "./thread-id.js";
