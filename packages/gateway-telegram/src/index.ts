export { BotApi, TelegramApiError } from "./bot-api.js";
export { escapeHtml, htmlToPlain, markdownToTelegramHtml, repairHtml } from "./format.js";
export {
  createTelegramGateway,
  TELEGRAM_MESSAGE_LIMIT,
  TelegramGateway,
  type TelegramGatewayOptions,
} from "./telegram-gateway.js";
export { createTelegramGateway as createGateway } from "./telegram-gateway.js";
