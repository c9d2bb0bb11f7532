// Markdown from the agent -> Telegram's HTML parse mode. HTML is the mode with the fewest escapes:
// only `<`, `>` and `&` outside tags (Bot API "HTML style"). The session cuts the formatted text
// into 4096-character pieces, which may split a tag pair, so each piece is repaired before sending.

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const attr = (s: string) => s.replace(/"/g, "&quot;");

/** Inline markdown on already escaped text: links, bold, italic, strikethrough, headings. */
function inline(escaped: string): string {
  return escaped
    .replace(/^#{1,6} +(.+)$/gm, "<b>$1</b>")
    .replace(
      /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
      (_m, text: string, url: string) => `<a href="${attr(url)}">${text}</a>`,
    )
    .replace(/\*\*([^*\n]+)\*\*/g, "<b>$1</b>")
    .replace(/~~([^~\n]+)~~/g, "<s>$1</s>")
    .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=$|[\s).,!?:;])/gm, "$1<i>$2</i>");
}

/** Converts the agent's markdown to Telegram HTML; code spans and blocks are escaped verbatim. */
export function markdownToTelegramHtml(markdown: string): string {
  const out: string[] = [];
  const fence = /```([\w+-]*)\n?([\s\S]*?)```/g;
  let last = 0;
  for (const m of markdown.matchAll(fence)) {
    out.push(inlineWithCode(markdown.slice(last, m.index)));
    const lang = m[1] ? ` class="language-${attr(m[1])}"` : "";
    // A block longer than one message becomes several blocks split at lines, so every piece the
    // session cuts (it prefers the blank lines between them) is still code.
    const blocks = splitLines(escapeHtml((m[2] ?? "").replace(/\n$/, "")), CODE_BLOCK_LIMIT);
    out.push(blocks.map((b) => `<pre><code${lang}>${b}</code></pre>`).join("\n\n"));
    last = m.index + m[0].length;
  }
  out.push(inlineWithCode(markdown.slice(last)));
  return out.join("");
}

/** Escaped code longer than this is split into several blocks (Telegram's limit is 4096). */
const CODE_BLOCK_LIMIT = 3_500;

function splitLines(code: string, limit: number): string[] {
  const blocks: string[] = [];
  let current = "";
  for (const line of code.split("\n")) {
    if (current && current.length + 1 + line.length > limit) {
      blocks.push(current);
      current = "";
    }
    current = current ? `${current}\n${line}` : line;
  }
  blocks.push(current);
  return blocks;
}

function inlineWithCode(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, i) =>
      i % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : inline(escapeHtml(part)),
    )
    .join("");
}

const TAG = /^<(\/?)([a-z-]+)((?:\s[^<>]*)?)>/i;
const ENTITY = /^&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot);/i;

/**
 * Makes one piece of formatted text parse on its own: closes tags left open at the cut, reopens
 * tags closed without an opener (the opener was in the previous piece; links lose their target),
 * and escapes any `<`, `>` or `&` a hard cut left without its tag or entity.
 */
export function repairHtml(piece: string): string {
  const open: { name: string }[] = [];
  const reopen: string[] = [];
  let out = "";
  let i = 0;
  while (i < piece.length) {
    const rest = piece.slice(i);
    const c = piece[i] as string;
    const tag = c === "<" ? TAG.exec(rest) : null;
    const entity = c === "&" ? ENTITY.exec(rest) : null;
    if (tag) {
      const name = (tag[2] as string).toLowerCase();
      if (!tag[1]) open.push({ name });
      else if (open.at(-1)?.name === name) open.pop();
      else if (name === "a") {
        i += tag[0].length; // an orphan link closer: its target is in the previous piece
        continue;
      } else reopen.unshift(`<${name}>`);
      out += tag[0];
      i += tag[0].length;
    } else if (entity) {
      out += entity[0];
      i += entity[0].length;
    } else {
      out += c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "&" ? "&amp;" : c;
      i += 1;
    }
  }
  const closers = open
    .reverse()
    .map((t) => `</${t.name}>`)
    .join("");
  return reopen.join("") + out + closers;
}

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
