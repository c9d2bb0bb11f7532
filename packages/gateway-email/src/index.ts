export {
  createGateway,
  EMAIL_DEFAULTS,
  EmailGateway,
  type EmailGatewayOptions,
  MESSAGE_LIMIT,
} from "./gateway.js";
