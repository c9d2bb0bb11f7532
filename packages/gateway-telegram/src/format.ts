// Markdown from the agent -> Telegram's HTML parse mode, rendered and cut by @agentsvc/markdown:
// the reply is cut on its Markdown tree at 4096 visible characters (what sendMessage counts) and
// each piece rendered on its own, so every piece parses as sent; nothing is repaired at send.
export { escapeHtml, htmlToPlain, splitHtml, telegramPieces } from "@agentsvc/markdown";
