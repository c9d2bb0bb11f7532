// Markdown -> a text/plain mail, rendered by the shared Markdown front end (@agentsvc/markdown):
// the text as written, with inline links and images as `text <URL>` (RFC 3986 appendix C), which
// mail clients make clickable. Code is never touched.
export { toMailText as markdownToMail } from "@agentsvc/markdown";
