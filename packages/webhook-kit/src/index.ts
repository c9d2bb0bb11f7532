export {
  hubSignature,
  safeEqualText,
  SIGNATURE_HEADER,
  type SignatureFailure,
  verifyHubSignature,
} from "./hub-signature.js";
export { readSecrets } from "./secrets.js";
export { type FailedAnswer, jsonOrSendError, type SendErrorOptions, sendErrorFor } from "./send-error.js";
export { inlineLinks, mapOutsideCode } from "./markdown.js";
export { plainResponse } from "./responses.js";
