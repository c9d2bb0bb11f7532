export {
  createWhatsappGateway,
  createWhatsappGateway as createGateway,
  DEFAULT_API_BASE_URL,
  DEFAULT_API_VERSION,
  TEXT_LIMIT,
  WhatsappGateway,
  type WhatsappGatewayOptions,
} from "./gateway.js";
export { hubSignature, verifyHubSignature } from "@agentsvc/webhook-kit";
export { approvalInteractive, BODY_LIMIT, BUTTON_TITLE_LIMIT } from "./approval-message.js";
export { toWhatsApp } from "./format.js";
