// Markdown -> WhatsApp markup: *bold*, _italic_, ~strikethrough~; headings become bold lines,
// links `text (url)`. Code (``` blocks and `inline`) is left as is: WhatsApp shows both as code.
import { inlineLinks, mapOutsideCode } from "@agentsvc/webhook-kit";

const BOLD = "\u0001";

export function toWhatsApp(markdown: string): string {
  return mapOutsideCode(markdown, (text) =>
    inlineLinks(text)
      .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm, `${BOLD}$1${BOLD}`)
      .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, `${BOLD}$2${BOLD}`)
      .replace(/(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])/g, "_$1_")
      .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, "~$1~")
      .replaceAll(BOLD, "*"),
  );
}
