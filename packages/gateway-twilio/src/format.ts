// Markdown -> plain SMS text, rendered by the shared Markdown front end (@agentsvc/markdown):
// emphasis markers, heading marks and code fences are dropped (an SMS shows them literally), links
// become `text (url)`; the words themselves are kept.
export { toPlainText } from "@agentsvc/markdown";
