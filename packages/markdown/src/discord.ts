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
// https://paradoxv5.github.io/Discord-Markdown). Nothing inside it is read as markup.
const BARE_URL = /https?:\/\/[^\s<]+/giu;

/**
 * Backslash before what Discord reads as markup or a mention; a line's `-`/`+` list marker too. An
 * underscore inside a word is left alone (Discord's `_` emphasis starts only at a word boundary), and
 * a bare URL is left whole but for a mention in it (unless `urls` is false).
 */
export const escapeDiscord = (text: string, urls = true) => {
  let out = "";
  let last = 0;
  for (const url of urls ? text.matchAll(BARE_URL) : []) {
    out += escapeMarkup(text.slice(last, url.index)) + url[0].replace(/@(?=everyone|here)/g, "\\@");
    last = url.index + url[0].length;
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
 * Inline parts joined, a bare URL of a link followed at once by more text (the `.`, `,` or `)` the
 * text put after it) written `<url>`: how far Discord's autolinker takes a bare URL is documented
 * loosely (our own reading above takes all up to a blank), and `<url>` is Discord's link token
 * with an end of its own (the brackets are not shown; Discord shows no preview for such a link).
 */
function joinInline(parts: string[], nodes: Nodes[]): string {
  let out = "";
  let next = "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as string;
    const type = nodes[i]?.type;
    const bare = (type === "link" || type === "image") && BARE_LINK.test(part);
    out = (bare && /^\S/.test(next) ? `<${part}>` : part) + out;
    if (part !== "") next = part;
  }
  return out;
}

const NO_MARKS: ReadonlySet<string> = new Set();

/** `open`: the marks (strong, emphasis, delete) around `node`. */
export function renderDiscord(doc: Parsed, node: Nodes, open: ReadonlySet<string> = NO_MARKS): string {
  const render = (d: Parsed, c: Nodes, inside = open) => renderDiscord(d, c, inside);
  const kids = (n: Nodes & { children: Nodes[] }, inside = open) =>
    joinInline(
      n.children.map((c) => render(doc, c, inside)),
      n.children,
    );
  const blocks = (n: Nodes & { children: Nodes[] }) => joinBlocks(doc, n.children, (c) => render(doc, c));
  // A mark inside the same mark (at any depth) adds nothing on screen, and doubled it is another token
  // (a cut piece's `~~~~x~~~~` at a line's start opens a code fence) or only length a cut piece may not
  // have (`~~**~~x~~**~~`): its children stand in its place.
  const marked = (n: Nodes & { children: Nodes[] }, token: string) =>
    open.has(n.type) ? kids(n) : `${token}${kids(n, new Set([...open, n.type]))}${token}`;
  switch (node.type) {
    case "root":
    case "list":
      return blocks(node);
    case "paragraph":
      return kids(node);
    case "text":
      return escapeDiscord(node.value);
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
      return escapeDiscord(sourceOf(doc, node));
  }
}

/** The model's Markdown as Discord markdown. */
export function toDiscord(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderDiscord(doc, doc.tree);
}
