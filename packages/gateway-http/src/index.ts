export {
  createHttpGateway,
  createHttpGateway as createGateway,
  HttpGateway,
  type HttpGatewayOptions,
} from "./gateway.js";
export type { OutboxMessage } from "./messages.js";
export { createHttpGatewayHandler, type HttpHandlerOptions } from "./handler.js";
export {
  requestBytes,
  requestSignatureHeaders,
  SIGNATURE_HEADER,
  type SignatureScheme,
  type SignedRequest,
  signatureHeaders,
  signPayload,
  TIMESTAMP_HEADER,
  TOLERANCE_SECONDS,
  type VerifyFailure,
  type VerifyResult,
  verifyRequest,
  verifySignature,
} from "./signature.js";
