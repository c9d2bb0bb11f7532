// Markdown -> a chat platform's own markup, outside code only: the model writes Markdown, and
// code spans and fenced blocks must reach the user byte for byte.

/** Applies `prose` to the text outside fenced blocks and inline code; `code` (default: as is) to code. */
export function mapOutsideCode(
  markdown: string,
  prose: (text: string) => string,
  code: (segment: string, fenced: boolean) => string = (s) => s,
): string {
  const parts = markdown.split(/(```[\s\S]*?(?:```|$)|`[^`\n]+`)/);
  return parts.map((part, i) => (i % 2 === 1 ? code(part, part.startsWith("```")) : prose(part))).join("");
}

/** `[text](url)` -> `text (url)`, or just `url` when the text is the URL. */
export function inlineLinks(text: string): string {
  return text.replace(/\[([^\]\n]+)\]\((\S+?)\)/g, (_, label: string, url: string) =>
    label === url ? url : `${label} (${url})`,
  );
}
