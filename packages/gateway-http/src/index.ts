export {
  createHttpGateway,
  HttpGateway,
  type HttpGatewayOptions,
  type OutboxMessage,
} from "./http-gateway.js";
export { createHttpGatewayHandler, type HttpHandlerOptions } from "./handler.js";
export {
  SIGNATURE_HEADER,
  signatureHeaders,
  signPayload,
  TIMESTAMP_HEADER,
  TOLERANCE_SECONDS,
  type VerifyFailure,
  verifySignature,
} from "./signature.js";
