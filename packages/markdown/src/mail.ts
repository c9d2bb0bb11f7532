// The tree -> a text/plain mail. Markdown mostly reads as written in plain text (lists, emphasis,
// headings, code), so the source is kept and only inline links and images are rewritten, to
// `text <URL>`: the angle-bracket form RFC 3986 appendix C recommends for URLs in plain text, which
// mail clients make clickable. The tree decides what is a link, so code is never touched and a URL
// with balanced parentheses stays whole.
import type { Nodes } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { parseMarkdown } from "./parse.js";

interface Edit {
  start: number;
  end: number;
  text: string;
}

function collect(node: Nodes, source: string, edits: Edit[]): void {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if ((node.type === "link" || node.type === "image") && start !== undefined && end !== undefined) {
    // Only `[text](url)` and `![alt](url)`: autolinks (`<url>`, bare URLs) already read as URLs.
    if (source[start] === "[" || source[start] === "!") {
      const label = node.type === "link" ? plain(node) : (node.alt ?? "");
      edits.push({
        start,
        end,
        text: label && label !== node.url ? `${label} <${node.url}>` : `<${node.url}>`,
      });
      return;
    }
  }
  if ("children" in node) for (const child of node.children) collect(child, source, edits);
}

/** The model's Markdown as the body of a text/plain mail. */
export function toMailText(markdown: string): string {
  const doc = parseMarkdown(markdown);
  const edits: Edit[] = [];
  collect(doc.tree, markdown, edits);
  let out = "";
  let last = 0;
  for (const edit of edits) {
    out += markdown.slice(last, edit.start) + edit.text;
    last = edit.end;
  }
  return out + markdown.slice(last);
}
