// A small markdown subset for assistant replies, escape-first: every piece of source text is
// HTML-escaped before any tag is introduced, and the only tags ever produced are p, br, strong,
// em, code, pre, a (http/https/mailto only), ul, ol, li and h1-h6. No raw HTML, no images.
// Pure string in, string out, so it runs (and is tested) outside the browser too.

// Private-use characters mark held fragments (code spans, links); stripped from the input first.
const OPEN = "\uE000";
const CLOSE = "\uE001";
const HELD = /\uE000(\d+)\uE001/g;

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** True for the only link targets allowed: http(s) URLs with a host, and mailto. */
export function isSafeUrl(url: string): boolean {
  return /^(?:https?:\/\/[^\s"'<>`\\/]|mailto:[^\s"'<>`\\])[^\s"'<>`\\]*$/i.test(url);
}

function anchor(url: string, labelHtml: string): string {
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer nofollow">${labelHtml}</a>`;
}

const WORD = "\\p{L}\\p{N}_";
const BOLD_STAR = /\*\*(?=[^\s*])([\s\S]*?[^\s*])\*\*/g;
const BOLD_UNDER = new RegExp(`(^|[^${WORD}])__(?=[^\\s_])([\\s\\S]*?[^\\s_])__(?![${WORD}])`, "gu");
const EM_STAR = new RegExp(`(^|[^*${WORD}])\\*(?=[^\\s*])([^*]*?[^\\s*])?\\*(?![*${WORD}])`, "gu");
const EM_UNDER = new RegExp(`(^|[^${WORD}])_(?=[^\\s_])([^_]*?[^\\s_])?_(?![${WORD}])`, "gu");

function emphasis(escaped: string): string {
  return escaped
    .replace(BOLD_STAR, "<strong>$1</strong>")
    .replace(BOLD_UNDER, "$1<strong>$2</strong>")
    .replace(EM_STAR, (_m, pre: string, body: string | undefined) => `${pre}<em>${body ?? ""}</em>`)
    .replace(EM_UNDER, (_m, pre: string, body: string | undefined) => `${pre}<em>${body ?? ""}</em>`);
}

// Trailing punctuation is not part of a bare URL ("see https://x.org."). URLs never include a held
// fragment's marker, so a code span next to a URL cannot end up inside an href.
const BARE_URL = /(^|[\s(])(https?:\/\/[^\s<>"'`\\\uE000\uE001]*[^\s<>"'`\\.,:;!?)\]\uE000\uE001])/gi;
const AUTOLINK = /<((?:https?:\/\/|mailto:)[^\s<>"'`\\\uE000\uE001]+)>/gi;
// [label](url) with at most one level of balanced parentheses inside the URL.
const LINK = /\[([^[\]\n]*)\]\(([^\s()\uE000\uE001]*(?:\([^\s()\uE000\uE001]*\)[^\s()\uE000\uE001]*)*)\)/g;
const CODE_SPAN = /(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;

/** Renders one line (or joined lines) of inline markdown. */
export function renderInline(source: string): string {
  const held: string[] = [];
  const hold = (html: string) => `${OPEN}${held.push(html) - 1}${CLOSE}`;
  let s = source.replace(CODE_SPAN, (_m, _ticks: string, code: string) => {
    // One leading and trailing space is padding (`` ` `` shows a backtick).
    const inner = /^ [\s\S]* $/.test(code) && code.trim() !== "" ? code.slice(1, -1) : code;
    return hold(`<code>${escapeHtml(inner)}</code>`);
  });
  s = s.replace(AUTOLINK, (m, url: string) => (isSafeUrl(url) ? hold(anchor(url, escapeHtml(url))) : m));
  s = s.replace(LINK, (_m, label: string, url: string) => {
    const labelHtml = emphasis(escapeHtml(label));
    // An unsafe target keeps only its label, as text.
    return hold(isSafeUrl(url) ? anchor(url, labelHtml) : labelHtml);
  });
  s = s.replace(BARE_URL, (_m, pre: string, url: string) => pre + hold(anchor(url, escapeHtml(url))));
  s = emphasis(escapeHtml(s));
  // Held fragments can contain held fragments (a code span inside a link label).
  for (let i = 0; i < 4 && s.includes(OPEN); i++)
    s = s.replace(HELD, (_m, n: string) => held[Number(n)] ?? "");
  return s;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;

function isClosingFence(line: string, marker: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return m !== null && m[1]![0] === marker[0] && m[1]!.length >= marker.length;
}

interface ListResult {
  html: string;
  next: number;
}

function parseList(lines: string[], start: number, indent: number): ListResult {
  const first = ITEM.exec(lines[start]!)!;
  const ordered = /\d/.test(first[2]!);
  const items: string[] = [];
  let text: string[] = [];
  let sub = "";
  const flush = () => {
    if (text.length || sub) items.push(`<li>${text.map(renderInline).join("<br>")}${sub}</li>`);
    text = [];
    sub = "";
  };
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    const m = ITEM.exec(line);
    if (m) {
      const depth = m[1]!.length;
      if (depth < indent) break;
      if (depth >= indent + 2 && items.length + text.length > 0) {
        const nested = parseList(lines, i, depth);
        sub += nested.html;
        i = nested.next;
        continue;
      }
      if (/\d/.test(m[2]!) !== ordered) break;
      flush();
      text.push(m[3]!);
      i++;
      continue;
    }
    if (line.trim() === "") {
      const after = lines[i + 1];
      const nextItem = after === undefined ? null : ITEM.exec(after);
      if (nextItem && nextItem[1]!.length >= indent) {
        i++;
        continue;
      }
      break;
    }
    if (/^\s{2,}\S/.test(line) && (text.length || sub)) {
      text.push(line.trim());
      i++;
      continue;
    }
    break;
  }
  flush();
  const startNo = ordered ? Number.parseInt(first[2]!, 10) : 1;
  const open = ordered ? (startNo !== 1 ? `<ol start="${startNo}">` : "<ol>") : "<ul>";
  return { html: `${open}${items.join("")}${ordered ? "</ol>" : "</ul>"}`, next: i };
}

/** Renders a whole reply. An unclosed fence (mid-stream) runs to the end as code. */
export function renderMarkdown(source: string): string {
  const lines = source
    .replace(/\r\n?/g, "\n")
    .replace(/[\uE000\uE001\u0000]/g, "")
    .split("\n");
  const out: string[] = [];
  let para: string[] = [];
  const flushPara = () => {
    if (para.length) out.push(`<p>${para.map(renderInline).join("<br>")}</p>`);
    para = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      flushPara();
      const marker = fence[1]!;
      const lang = fence[2]!.replace(/[^\w+#.-]/g, "").slice(0, 32);
      const body: string[] = [];
      i++;
      while (i < lines.length && !isClosingFence(lines[i]!, marker)) body.push(lines[i++]!);
      i++;
      const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
      out.push(`<pre><code${cls}>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushPara();
      const level = heading[1]!.length;
      out.push(`<h${level}>${renderInline(heading[2] ?? "")}</h${level}>`);
      i++;
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      flushPara();
      const list = parseList(lines, i, item[1]!.length);
      out.push(list.html);
      i = list.next;
      continue;
    }
    if (line.trim() === "") flushPara();
    else para.push(line.trim());
    i++;
  }
  flushPara();
  return out.join("");
}

/**
 * Where a streamed reply can be cut so that the part before the cut renders the same alone as it
 * does inside the whole reply, however the text goes on: after a blank line outside a code fence
 * whose next line is complete and does not go on a list (a list goes on across a blank line when
 * an item follows). Returns the offset of that next line's start in `text`, or 0 when there is no cut yet.
 * Only complete lines are read: a trailing `\r` may still become `\r\n`.
 */
export function stableCut(text: string): number {
  const line = /([^\r\n]*)(\r\n|\n|\r(?!$))/g;
  let cut = 0;
  let fence: string | null = null;
  // Inside a list an indented line continues the item (renderMarkdown reads it as text, even when
  // it looks like a fence), as parseList does; a blank line ends the list unless an item follows.
  let inList = false;
  let blankBefore = false;
  for (let m = line.exec(text); m; m = line.exec(text)) {
    const content = m[1]!;
    const blank = content.trim() === "";
    if (fence !== null) {
      if (isClosingFence(content, fence)) fence = null;
    } else if (blank) {
      // Handled with the next line.
    } else if (ITEM.test(content)) {
      // An item after a blank line goes on the list before it, or starts a list of its own.
      if (blankBefore && !inList) cut = m.index;
      inList = true;
    } else if (inList && !blankBefore && /^\s{2,}\S/.test(content)) {
      // A continuation line of the open item.
    } else {
      inList = false;
      if (blankBefore) cut = m.index;
      const open = FENCE_OPEN.exec(content);
      if (open) fence = open[1]!;
    }
    blankBefore = blank;
  }
  return cut;
}

/**
 * A streamed reply rendered block by block: `update` returns the markup of the blocks that became
 * final since the last call (to append once) and of the block still growing (to replace), so each
 * token re-parses only the open block, not the whole reply. Appending every `done` and then the
 * last `open` gives exactly `renderMarkdown(text)`.
 */
export class MarkdownStream {
  /** The final part of the text, already returned as `done`. */
  private final = "";

  /** `reset` is true when `text` does not go on from the last one: render it all again. */
  update(text: string): { done: string; open: string; reset: boolean } {
    const reset = !text.startsWith(this.final);
    if (reset) this.final = "";
    const rest = text.slice(this.final.length);
    const cut = stableCut(rest);
    this.final += rest.slice(0, cut);
    return {
      done: cut ? renderMarkdown(rest.slice(0, cut)) : "",
      open: renderMarkdown(rest.slice(cut)),
      reset,
    };
  }
}

const CLOSING_TAGS = /(?:<\/[a-z][a-z0-9]*>)+$/;

/**
 * Whether `next` is `prev` with plain text (no tag, no entity) added just before `prev`'s closing
 * tags, as when a token goes on the last line of the open block. Then that text, appended inside
 * the innermost element those tags close (`closing`, innermost first), gives exactly the nodes
 * that parsing `next` would, without parsing or replacing anything; otherwise null.
 */
export function appendedText(prev: string, next: string): { text: string; closing: string[] } | null {
  const suffix = CLOSING_TAGS.exec(prev)?.[0];
  if (!suffix || next.length < prev.length || !next.endsWith(suffix)) return null;
  const head = prev.length - suffix.length;
  if (!next.startsWith(prev.slice(0, head))) return null;
  const text = next.slice(head, next.length - suffix.length);
  if (/[<&]/.test(text)) return null;
  return { text, closing: [...suffix.matchAll(/<\/([a-z0-9]+)>/g)].map((m) => m[1]!) };
}
