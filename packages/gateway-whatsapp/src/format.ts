// Markdown -> WhatsApp markup, rendered by the shared Markdown front end (@agentsvc/markdown):
// *bold*, _italic_, ~strikethrough~; headings become bold lines, links `text (url)`. Code
// (``` blocks and `inline`) stays code: WhatsApp shows both as monospace.
export { toWhatsApp } from "@agentsvc/markdown";
