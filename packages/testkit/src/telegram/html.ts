// Telegram's HTML parse mode as the Bot API checks it: only the supported tags, balanced, and
// `<`, `>`, `&` outside tags escaped as entities. Returns the visible text or the API's complaint.

const TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

export type HtmlParse = { ok: true; text: string } | { ok: false; description: string };

/** Parses `html` the way `parse_mode: "HTML"` does. */
export function parseTelegramHtml(html: string): HtmlParse {
  const open: string[] = [];
  let text = "";
  let i = 0;
  const fail = (why: string): HtmlParse => ({
    ok: false,
    description: `Bad Request: can't parse entities: ${why} at byte offset ${Buffer.byteLength(html.slice(0, i))}`,
  });
  while (i < html.length) {
    const c = html[i] as string;
    if (c === "<") {
      const end = html.indexOf(">", i);
      if (end < 0) return fail("Unclosed start tag");
      const body = html.slice(i + 1, end);
      const m = /^(\/?)([a-z-]+)(\s[^<>]*)?$/i.exec(body);
      if (!m) return fail(`Unsupported start tag "${body.split(/\s/)[0]}"`);
      const name = (m[2] as string).toLowerCase();
      if (!TAGS.has(name)) return fail(`Unsupported start tag "${name}"`);
      if (m[1]) {
        if (open.pop() !== name) return fail(`Unexpected end tag "${name}"`);
      } else {
        open.push(name);
      }
      i = end + 1;
    } else if (c === "&") {
      const m = /^&(#x[0-9a-f]+|#\d+|[a-z]+);/i.exec(html.slice(i, i + 12));
      if (!m) return fail('Character "&" must be escaped as "&amp;"');
      const ref = m[1] as string;
      if (ref.startsWith("#")) {
        const code = ref[1]?.toLowerCase() === "x" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
        text += String.fromCodePoint(code);
      } else {
        const named = NAMED[ref.toLowerCase()];
        if (named === undefined) return fail(`Unsupported HTML entity "&${ref};"`);
        text += named;
      }
      i += m[0].length;
    } else if (c === ">") {
      return fail('Character ">" must be escaped as "&gt;"');
    } else {
      text += c;
      i += 1;
    }
  }
  if (open.length > 0) return fail(`Can't find end tag corresponding to start tag "${open.at(-1)}"`);
  return { ok: true, text };
}
