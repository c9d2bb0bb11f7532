// Markdown -> plain SMS text: emphasis markers, heading marks and code fences are dropped (an SMS
// shows them literally), links become `text (url)`; the words themselves are kept.
import { inlineLinks, mapOutsideCode } from "@agentsvc/webhook-kit";

export function toPlainText(markdown: string): string {
  return mapOutsideCode(
    markdown,
    (text) =>
      inlineLinks(text)
        .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm, "$1")
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
        .replace(/(?<![\w*])[*_](?=\S)([^*_\n]+?)(?<=\S)[*_](?![\w*])/g, "$1")
        .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "$1"),
    (segment, fenced) =>
      fenced ? segment.replace(/^```[^\n]*\n?/, "").replace(/\n?```$/, "") : segment.slice(1, -1),
  );
}
