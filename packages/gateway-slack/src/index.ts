export { inboundOf, markdownToMrkdwn, parseThread, threadOf } from "./events.js";
export {
  createSlackGateway,
  SLACK_MESSAGE_LIMIT,
  SlackGateway,
  type SlackGatewayOptions,
} from "./slack-gateway.js";
export { createSlackGateway as createGateway } from "./slack-gateway.js";
export { SlackWebApi } from "./web-api.js";
