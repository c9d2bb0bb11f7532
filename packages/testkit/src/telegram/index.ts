export {
  type BotMessage as TelegramBotMessage,
  type DraftShown as TelegramDraftShown,
  TelegramChat,
  type UserMessageInput as TelegramUserMessage,
} from "./chat.js";
export { TELEGRAM_DOWNLOAD_LIMIT, TelegramFiles, type TelegramSentFile } from "./files.js";
export { TELEGRAM_CHAT_LIMITS, TelegramFake, type TelegramFakeOptions } from "./fake.js";
export { parseTelegramHtml } from "./html.js";
export type {
  CallbackQuery as TelegramCallbackQuery,
  InlineKeyboardMarkup as TelegramInlineKeyboard,
  TelegramApiCall,
  TelegramFault,
  TelegramMessage,
  TelegramUser,
  Update as TelegramUpdate,
  WithheldUpdate as TelegramWithheldUpdate,
} from "./types.js";
