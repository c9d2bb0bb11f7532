export {
  hubSignature,
  safeEqualText,
  SIGNATURE_HEADER,
  type SignatureFailure,
  verifyHubSignature,
} from "./hub-signature.js";
export { type FailedAnswer, jsonOrSendError, type SendErrorOptions, sendErrorFor } from "./send-error.js";
export { plainResponse } from "./responses.js";
export {
  DRAIN_PAST_LIMIT,
  type DrainBound,
  readBody,
  readNodeBody,
  type ReadBodyResult,
} from "./read-body.js";
export { type RawRequest, rawRequest } from "./node-request.js";
export {
  type ParseResult,
  type VerifyResult,
  type WebhookRefusal,
  webhookRoute,
  type WebhookRouteSpec,
} from "./webhook-route.js";
export {
  type AttachmentPolicy,
  type AttachmentSource,
  DownloadFailed,
  DownloadRefused,
  earlierDownload,
  fetchAttachment,
} from "./download.js";
export {
  fetchPlatformFile,
  type MediaPolicy,
  type PlatformFile,
  type PlatformFileAccess,
} from "./platform-file.js";
export { INLINE_IMAGE_TYPES, type Sniffed, sniff } from "./sniff.js";
export { FILES_PATH, type FileUrlOptions, type FileUrls, fileUrls } from "./file-urls.js";
