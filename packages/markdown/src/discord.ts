// The tree -> Discord's markdown (https://support.discord.com/hc/en-us/articles/210298617):
// `**bold**`, `*italic*`, `~~strike~~`, `#`-`###` headings (deeper ones bold), masked links
// `[text](url)`, `-`/`1.` lists, `> ` quotes, fenced code. Discord shows tables as raw pipes, so a
// table is a code block of aligned columns. Text the model wrote is escaped with a backslash where
// Discord would read markup, and never becomes a mention: `@everyone`, `@here`, `<@id>`, `<#id>`,
// `<@&id>` and `</command:id>` are shown as typed (the gateway also sends `allowed_mentions` empty).
import type { Nodes } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { itemBody, itemHead, joinBlocks, type Parsed, parseMarkdown, sourceOf } from "./parse.js";
import type { Continued } from "./split-tree.js";
import { tableText } from "./table.js";

/** Backslash before what Discord reads as markup or a mention (`_` only at a word's edge). */
const escapeMarkup = (text: string) =>
  text.replace(/[\\*~`|[\]<>#@]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\$&");

// Discord links a bare URL in text by itself, backslashes and all, so an escape inside one breaks the
// link (`Mercury\_(planet)` opens `Mercury/_(planet)`: https://github.com/python-discord/bot/issues/3154,
// https://github.com/discordjs/discord.js/issues/9950; "a plain link isn't based on Markdown",
// https://paradoxv5.github.io/Discord-Markdown). Nothing inside it is read as markup. Read up to a
// blank or an angle bracket (`>` ends a tag in raw HTML, and `<url>` cannot hold one).
const BARE_URL = /https?:\/\/[^\s<>]+/giu;

// Not part of a bare URL at its end, as the parser reads one (GFM's extended autolink path
// validation: https://github.github.com/gfm/#extended-autolink-path-validation, and micromark
// also leaves out `;`, `"`, `'` and `]`); an unmatched `)` neither.
const TRAILING = /[?!.,:;*_~"'\]]$/;

/** `url` without what a sentence or markup put right after it. */
function withoutTrailing(url: string): string {
  let end = url.length;
  for (;;) {
    const head = url.slice(0, end);
    const unmatched = head.endsWith(")") && head.split(")").length > head.split("(").length;
    if (!TRAILING.test(head) && !unmatched) return head;
    end -= 1;
  }
}

/** A bare URL followed by text (not a blank, not the line's end): `<url>`, see joinInline. */
const bareOrToken = (url: string, after: string) => (/^\S/.test(after) ? `<${url}>` : url);

/**
 * Backslash before what Discord reads as markup or a mention; a line's `-`/`+` list marker too. An
 * underscore inside a word is left alone (Discord's `_` emphasis starts only at a word boundary), and
 * a bare URL is left whole but for a mention in it (unless `urls` is false), written `<url>` when
 * text follows it (in `text`, or `after` it: what the caller writes next).
 */
export const escapeDiscord = (text: string, urls = true, after = "") => {
  let out = "";
  let last = 0;
  for (const match of urls ? text.matchAll(BARE_URL) : []) {
    const url = withoutTrailing(match[0]);
    // Nothing after the scheme: text, escaped with what follows it.
    if (!/^https?:\/\/./i.test(url)) continue;
    const end = match.index + url.length;
    const shown = url.replace(/@(?=everyone|here)/g, "\\@");
    out += escapeMarkup(text.slice(last, match.index)) + bareOrToken(shown, text.slice(end) + after);
    last = end;
  }
  return (out + escapeMarkup(text.slice(last))).replace(/(^|\n)([-+])(?= )/g, "$1\\$2");
};

// Inside code nothing can be escaped: a fence or a mention in the code is broken by a zero-width space.
const codeSafe = (code: string) =>
  code.replace(/```/g, "`\u200b``").replace(/@(?=everyone|here)|<(?=[@#/])/g, "$&\u200b");

/** A masked link's target: parentheses, spaces and angle brackets percent-encoded, so Discord keeps it whole. */
const target = (url: string) =>
  url.replace(/[()<>\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);

function link(url: string, text: string): string {
  if (!text || text === url) return /^https?:\/\//i.test(url) ? target(url) : escapeDiscord(url);
  // A masked link's text is escaped whole: whether Discord links a URL inside it is not documented.
  return `[${escapeDiscord(text.replace(/\n/g, " "), false)}](${target(url)})`;
}

/** An inline code span: as many backticks as it needs (one or two), spaced off a backtick at its edge. */
function codeSpan(value: string): string {
  const ticks = value.includes("`") ? "``" : "`";
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${ticks}${pad}${codeSafe(value).replace(/``+/g, (run) => run.split("").join("\u200b"))}${pad}${ticks}`;
}

const fence = (code: string, lang?: string | null) =>
  `\`\`\`${lang && /^[\w+#.-]+$/.test(lang) ? lang : ""}\n${codeSafe(code)}\n\`\`\``;

const BARE_LINK = /^https?:\/\/[^\s<>]+$/i;

/**
 * Inline nodes rendered right to left, each told what follows it (`after`: what the parent writes
 * next), and joined; a bare URL of a link followed at once by more text (the `.`, `,` or `)` the
 * text put after it, or the `**` closing the bold it ends) written `<url>`: how far Discord's
 * autolinker takes a bare URL is documented loosely (our own reading above takes all up to a
 * blank; Discord's own takes a trailing `*`, `_` or `~`, see render.test.ts), and `<url>` is
 * Discord's link token with an end of its own (the brackets are not shown; Discord shows no
 * preview for such a link).
 */
function joinInline(nodes: Nodes[], render: (node: Nodes, after: string) => string, after: string): string {
  let out = "";
  let next = after;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i] as Nodes;
    const part = render(node, next);
    const bare = (node.type === "link" || node.type === "image") && BARE_LINK.test(part);
    out = (bare ? bareOrToken(part, next) : part) + out;
    if (part !== "") next = part;
  }
  return out;
}

const NO_MARKS: ReadonlySet<string> = new Set();

/** `open`: the marks (strong, emphasis, delete) around `node`; `after`: what is written after it. */
export function renderDiscord(
  doc: Parsed,
  node: Nodes,
  open: ReadonlySet<string> = NO_MARKS,
  after = "",
): string {
  const render = (d: Parsed, c: Nodes, inside = open, next = "") => renderDiscord(d, c, inside, next);
  const kids = (n: Nodes & { children: Nodes[] }, inside = open, next = after) =>
    joinInline(n.children, (c, a) => render(doc, c, inside, a), next);
  const blocks = (n: Nodes & { children: Nodes[] }) => joinBlocks(doc, n.children, (c) => render(doc, c));
  // A mark inside the same mark (at any depth) adds nothing on screen, and doubled it is another token
  // (a cut piece's `~~~~x~~~~` at a line's start opens a code fence) or only length a cut piece may not
  // have (`~~**~~x~~**~~`): its children stand in its place.
  const marked = (n: Nodes & { children: Nodes[] }, token: string) =>
    open.has(n.type) ? kids(n) : `${token}${kids(n, new Set([...open, n.type]), token)}${token}`;
  switch (node.type) {
    case "root":
    case "list":
      return blocks(node);
    case "paragraph":
      return kids(node);
    case "text":
      return escapeDiscord(node.value, true, after);
    case "strong":
      return marked(node, "**");
    case "emphasis":
      return marked(node, "*");
    case "delete":
      return marked(node, "~~");
    case "inlineCode":
      return codeSpan(node.value);
    case "break":
      return "\n";
    case "link":
      return link(node.url, plain(node));
    case "image":
      return link(node.url, node.alt ?? "");
    case "heading":
      return node.depth <= 3 ? `${"#".repeat(node.depth)} ${kids(node)}` : `**${kids(node)}**`;
    case "code":
      return fence(node.value, node.lang);
    case "blockquote":
      return blocks(node).replace(/^/gm, "> ");
    case "listItem": {
      // The part of an item going on from the previous message opens its own message: no blank
      // marker (two nested ones make four spaces, which CommonMark readers show as code).
      const head = (node.data as Continued | undefined)?.continued ? "" : itemHead(doc, node);
      return `${head}${itemBody(doc, node.children, head.length, (c) => render(doc, c))}`;
    }
    case "table":
      return fence(tableText(node));
    case "thematicBreak":
      return "———";
    case "definition":
      return "";
    case "footnoteReference":
      return `\\[${escapeDiscord(node.label ?? node.identifier)}\\]`;
    case "footnoteDefinition":
      return `\\[${escapeDiscord(node.label ?? node.identifier)}\\] ${blocks(node)}`;
    case "linkReference":
    case "imageReference":
      return escapeDiscord(plain(node) || sourceOf(doc, node));
    default:
      return escapeDiscord(sourceOf(doc, node), true, after);
  }
}

/** The model's Markdown as Discord markdown. */
export function toDiscord(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderDiscord(doc, doc.tree);
}
