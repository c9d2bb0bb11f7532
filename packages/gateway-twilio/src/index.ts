export {
  createTwilioGateway,
  createTwilioGateway as createGateway,
  DEFAULT_API_BASE_URL,
  EMPTY_TWIML,
  SMS_LIMIT,
  TwilioGateway,
  type TwilioGatewayOptions,
} from "./gateway.js";
export { signatureBase, twilioSignature, verifyTwilioSignature } from "./signature.js";
export { toPlainText } from "./format.js";
