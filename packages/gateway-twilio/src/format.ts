// Markdown -> plain SMS text, rendered by the shared Markdown front end (@agentsvc/markdown):
// emphasis markers, heading marks and code fences are dropped (an SMS shows them literally), links
// become `text (url)`; the words themselves are kept.
// A reply is cut on its Markdown tree at 1 600 characters and each piece rendered on its own.
export { plainTextPieces } from "@agentsvc/markdown";
