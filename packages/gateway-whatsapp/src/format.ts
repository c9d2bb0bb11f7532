// Markdown -> WhatsApp markup, rendered by the shared Markdown front end (@agentsvc/markdown):
// *bold*, _italic_, ~strikethrough~; headings become bold lines, links `text (url)`. Code
// (``` blocks and `inline`) stays code: WhatsApp shows both as monospace.
// A reply is cut on its Markdown tree at 4 096 characters and each piece rendered on its own.
export { whatsAppPieces } from "@agentsvc/markdown";
