export { toPlainText, toWhatsApp } from "./chat.js";
export { escapeDiscord, toDiscord } from "./discord.js";
export { htmlToPlain, splitHtml } from "./html-split.js";
export { toMailHtml } from "./mail-html.js";
export { toMailText } from "./mail.js";
export { type MarkdownNode, type MentionReading, quietMentions, rangeOf } from "./mentions.js";
export { escapeMrkdwn, toMrkdwn } from "./mrkdwn.js";
export {
  discordPieces,
  mailPieces,
  plainTextPieces,
  slackPieces,
  telegramPieces,
  whatsAppPieces,
} from "./pieces.js";
export { toSlackMarkdown } from "./slack-markdown.js";
export { escapeHtml, toTelegramHtml } from "./telegram.js";
