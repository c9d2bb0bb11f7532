export { toPlainText, toWhatsApp } from "./chat.js";
export { htmlToPlain, splitHtml } from "./html-split.js";
export { toMailText } from "./mail.js";
export { escapeMrkdwn, toMrkdwn } from "./mrkdwn.js";
export { escapeHtml, toTelegramHtml } from "./telegram.js";
