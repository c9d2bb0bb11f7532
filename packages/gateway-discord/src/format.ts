// Markdown -> Discord's markdown. Discord renders most of CommonMark itself (bold, italics, strike,
// code, fenced blocks, quotes, lists, `#`-`###` headings, masked links), so only what it shows as
// raw text is rewritten (https://support.discord.com/hc/en-us/articles/210298617):
// headings of level 4-6 become bold lines, images become links (Discord previews the URL), and
// tables go into a code block so their columns stay aligned. Fenced code is never touched.

const FENCE = /^\s*(```|~~~)/;
const DEEP_HEADING = /^#{4,6}\s+(.+?)\s*#*\s*$/;
const IMAGE = /!\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export function markdownToDiscord(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker === fence) fence = undefined;
      out.push(line);
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(line);
      continue;
    }
    // A table: a header row, then its |---|---| rule, then rows.
    if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[i + 1] ?? "")) {
      const table = [line, lines[++i] as string];
      while (i + 1 < lines.length && TABLE_ROW.test(lines[i + 1] as string)) table.push(lines[++i] as string);
      out.push("```", ...table, "```");
      continue;
    }
    const heading = DEEP_HEADING.exec(line);
    if (heading) {
      out.push(`**${heading[1]}**`);
      continue;
    }
    out.push(line.replace(IMAGE, (_, alt: string, url: string) => (alt ? `[${alt}](${url})` : url)));
  }
  return out.join("\n");
}
