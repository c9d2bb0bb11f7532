// Markdown -> a text/plain mail. Replies go out as text/plain, where Markdown mostly reads as
// written (lists, emphasis, headings, code); only links and images would show as raw syntax with
// an unclickable URL. They become `text <URL>`: the angle-bracket form RFC 3986 appendix C
// recommends for URLs in plain text, which mail clients turn into links. Code is never touched.

const FENCE = /^\s*(```|~~~)/;
// ![alt](url "title") and [text](url "title"); the URL without blanks.
const LINK = /(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const INLINE_CODE = /(`+)[^`]*?\1/g;

function rewriteLinks(text: string): string {
  return text.replace(LINK, (_, _image: string, label: string, url: string) =>
    label && label !== url ? `${label} <${url}>` : `<${url}>`,
  );
}

/** Outside code spans only: a link inside `backticks` is code. */
function rewriteLine(line: string): string {
  let out = "";
  let last = 0;
  for (const match of line.matchAll(INLINE_CODE)) {
    out += rewriteLinks(line.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + rewriteLinks(line.slice(last));
}

export function markdownToMail(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const marker = FENCE.exec(line)?.[1];
      if (fence) {
        if (marker === fence) fence = undefined;
        return line;
      }
      if (marker) {
        fence = marker;
        return line;
      }
      return rewriteLine(line);
    })
    .join("\n");
}
