export { decisionText } from "./decision-line.js";
export {
  createEmailGateway,
  createEmailGateway as createGateway,
  EMAIL_DEFAULTS,
  EmailGateway,
  type EmailGatewayOptions,
} from "./email-gateway.js";
export { ImapLoginError } from "./imap.js";
export { ignoreReason, replySubject, requestTag, stripQuoted } from "./message.js";
