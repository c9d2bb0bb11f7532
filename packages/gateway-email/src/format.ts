// Markdown -> a mail, rendered by the shared Markdown front end (@agentsvc/markdown): each piece is
// sent as text/plain (the text as written, links and images as `text <URL>`, RFC 3986 appendix C)
// with a text/html alternative rendered from the same tree (every character the model typed
// escaped; only the tree's own elements; links live for http(s) and mailto only).
export { mailPieces, toMailHtml, toMailText as markdownToMail } from "@agentsvc/markdown";
