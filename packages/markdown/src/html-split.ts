// Cutting rendered HTML (Telegram's parse mode) at a platform limit. Telegram's 4096 limit of
// sendMessage counts the text after entities parsing, so pieces are measured in visible characters,
// never cut inside a tag, an entity or a surrogate pair, and a tag open at a cut is closed at the
// end of its piece and reopened, attributes and all, in the next: every piece parses on its own.

/** Visible text of Telegram HTML: the fallback when the platform still refuses the markup. */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^<>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&");
}

interface Token {
  raw: string;
  /** Visible UTF-16 units: 0 for a tag, 1 for an entity, 1 or 2 for a character. */
  width: number;
  /** An opening (`open`) or closing tag, by name. */
  tag?: { name: string; open: boolean };
}

const TOKEN =
  /<(\/?)([a-z-]+)(?:\s[^<>]*)?>|&(?:#x[0-9a-f]+|#\d+|[a-z]+);|[\ud800-\udbff][\udc00-\udfff]|[\s\S]/giy;

function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(html); m; m = TOKEN.exec(html)) {
    const raw = m[0];
    if (m[2]) tokens.push({ raw, width: 0, tag: { name: m[2].toLowerCase(), open: !m[1] } });
    else tokens.push({ raw, width: raw.startsWith("&") && raw.length > 1 ? 1 : raw.length });
  }
  return tokens;
}

const isSpace = (t: Token | undefined) =>
  t !== undefined && (t.raw === " " || t.raw === "\t" || t.raw === "\n");

/**
 * Cuts Telegram HTML into pieces of at most `limit` visible characters (what sendMessage counts),
 * preferring a blank line, then a line break, then a space, else hard at the limit; never inside a
 * tag, an entity or a surrogate pair. Tags open at a cut are closed at the end of the piece and
 * reopened (with their attributes: links keep their target, code its language) in the next.
 */
export function splitHtml(html: string, limit: number): string[] {
  const tokens = tokenize(html);
  const pieces: string[] = [];
  let open: Token[] = [];
  let i = 0;
  while (i < tokens.length) {
    while (isSpace(tokens[i])) i++;
    if (i >= tokens.length) break;
    let width = 0;
    let end = i;
    while (end < tokens.length && width + (tokens[end] as Token).width <= limit) {
      width += (tokens[end] as Token).width;
      end++;
    }
    let cut = end;
    let next = end;
    if (end < tokens.length) {
      const sep = separatorBefore(tokens, i, end);
      if (sep) [cut, next] = sep;
      // A hard cut leaves no opening tag dangling at the end of the piece.
      else while (cut > i + 1 && tokens[cut - 1]?.tag?.open) next = --cut;
    }
    const reopen = open.map((t) => t.raw).join("");
    let body = "";
    for (let k = i; k < cut; k++) {
      const t = tokens[k] as Token;
      if (t.tag?.open) open.push(t);
      else if (t.tag && open.at(-1)?.tag?.name === t.tag.name) open = open.slice(0, -1);
      body += t.raw;
    }
    const close = [...open]
      .reverse()
      .map((t) => `</${t.tag?.name}>`)
      .join("");
    if (htmlToPlain(body).trim() !== "") pieces.push(reopen + body.replace(/\s+$/, "") + close);
    i = next;
  }
  return pieces;
}

/** [cut, next] at the last blank line, else line break, else space inside tokens[from, to). */
function separatorBefore(tokens: Token[], from: number, to: number): [number, number] | undefined {
  let line = -1;
  let space = -1;
  for (let k = to; k > from + 1; k--) {
    const t = tokens[k - 1] as Token;
    if (t.raw === "\n" && tokens[k - 2]?.raw === "\n" && k - 2 > from) return [k - 2, k];
    if (t.raw === "\n" && line < 0) line = k - 1;
    if ((t.raw === " " || t.raw === "\t") && space < 0) space = k - 1;
  }
  const at = line > from ? line : space > from ? space : -1;
  return at > 0 ? [at, at + 1] : undefined;
}
