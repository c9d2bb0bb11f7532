// A reply cut into messages at a platform's limit, on the tree (split-tree.ts), then each piece
// rendered: every piece is valid in the platform's format on its own and the pieces together say
// what the whole says. Platforms that render at send (Slack: mrkdwn for messages and markdown_text
// for streams; e-mail: text and HTML) take Markdown pieces instead.
import type { Nodes, Root } from "mdast";
import { toMarkdown } from "mdast-util-to-markdown";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toString as plain } from "mdast-util-to-string";
import { renderPlainText, renderWhatsApp, spelled } from "./chat.js";
import { renderDiscord } from "./discord.js";
import { htmlToPlain } from "./html-split.js";
import { renderMrkdwn } from "./mrkdwn.js";
import { gapBetween, markerOf, type Parsed, parseMarkdown, sourceOf } from "./parse.js";
import { renderSlackMarkdown } from "./slack-markdown.js";
import { type Continued, splitTree } from "./split-tree.js";
import { renderTelegram } from "./telegram.js";

type Render = (doc: Parsed, node: Nodes) => string;

const length = (s: string) => s.length;

function rendered(
  markdown: string,
  limit: number,
  render: Render,
  measure = length,
  spell?: (node: Nodes) => string,
): string[] {
  const doc = parseMarkdown(markdown);
  return splitTree(doc.tree, limit, (piece) => measure(render(doc, piece)), spell)
    .map((piece) => render(doc, piece))
    .filter((piece) => piece.trim() !== "");
}

/** Telegram HTML pieces of at most `limit` visible characters (what sendMessage counts). */
export const telegramPieces = (markdown: string, limit: number) =>
  rendered(markdown, limit, renderTelegram, (html) => htmlToPlain(html).length);

/** Discord markdown pieces of at most `limit` characters. */
export const discordPieces = (markdown: string, limit: number) => rendered(markdown, limit, renderDiscord);

// A link too long for a message is shown as on these platforms anyway: `text (url)`.
const spellLink = (node: Nodes) =>
  node.type === "link" || node.type === "image"
    ? spelled(node.type === "link" ? plain(node) : (node.alt ?? ""), node.url)
    : plain(node);

/** WhatsApp pieces of at most `limit` characters. */
export const whatsAppPieces = (markdown: string, limit: number) =>
  rendered(markdown, limit, renderWhatsApp, length, spellLink);

/** Plain-text (SMS) pieces of at most `limit` characters. */
export const plainTextPieces = (markdown: string, limit: number) =>
  rendered(markdown, limit, renderPlainText, length, spellLink);

// Nodes whose children are phrasing (text-level) content; other parents hold blocks.
const PHRASING_PARENTS: ReadonlySet<string> = new Set([
  "paragraph",
  "heading",
  "emphasis",
  "strong",
  "delete",
  "link",
  "linkReference",
  "tableCell",
]);

/**
 * A part made writable as Markdown: raw HTML as text (as every renderer shows it; written back
 * verbatim it could start an HTML block), and a mark directly inside the same mark merged into it
 * (`~~~~x~~~~` at a line's start would be a code fence). An HTML block becomes a paragraph of text:
 * a bare text node among blocks is written without escapes, so `[a](b)` after the tag became a link.
 */
const writable = (node: Nodes, inPhrasing = false): Nodes => {
  if (node.type === "html") {
    const text: Nodes = { type: "text", value: node.value };
    return inPhrasing ? text : { type: "paragraph", children: [text] };
  }
  if (!("children" in node)) return node;
  const children = (node.children as Nodes[]).flatMap((child) =>
    child.type === node.type &&
    (child.type === "delete" || child.type === "strong" || child.type === "emphasis")
      ? child.children
      : [child],
  );
  const phrasing = PHRASING_PARENTS.has(node.type);
  return { ...node, children: children.map((child) => writable(child, phrasing)) } as Nodes;
};

const write = (node: Nodes) =>
  toMarkdown(writable(node), { extensions: [gfmToMarkdown()], fences: true, bullet: "-" }).replace(
    /\n+$/,
    "",
  );

/** Every node of the parsed tree (a piece's parts are copies; whole nodes are these). */
function nodesOf(node: Nodes, out = new Set<Nodes>()): Set<Nodes> {
  out.add(node);
  if ("children" in node) for (const child of node.children) nodesOf(child, out);
  return out;
}

/**
 * Markdown of a piece: whole blocks and list items as the model wrote them (markers and all), a
 * part of a cut block written back. The part of an item that goes on from the previous piece has
 * no marker in Markdown: its blocks stand on their own.
 */
function markdownOf(doc: Parsed, piece: Root, original: Set<Nodes>): string {
  const written = (node: Nodes): string => {
    if (original.has(node)) return sourceOf(doc, node);
    if (node.type === "listItem" && (node.data as Continued | undefined)?.continued)
      return node.children.map(written).join("\n\n");
    if (node.type === "listItem") {
      const start = Number.parseInt(markerOf(doc, node), 10);
      return write({
        type: "list",
        ordered: !Number.isNaN(start),
        start,
        spread: node.spread,
        children: [node],
      });
    }
    if (node.type === "list") return joined(node.children, node.spread ? "\n\n" : "\n");
    return write(node);
  };
  const joined = (nodes: readonly Nodes[], gap = "\n\n") => {
    let out = "";
    nodes.forEach((node, i) => {
      const prev = nodes[i - 1];
      // Whole nodes keep the source's gap (a line break or a blank line); written-back parts `gap`
      // (a line break between the items of a tight list, else a blank line).
      if (prev) out += original.has(prev) && original.has(node) ? gapBetween(doc, prev, node) : gap;
      out += written(node);
    });
    return out;
  };
  return joined(piece.children);
}

/** Markdown pieces measuring at most `limit`: for a platform that renders each piece at send. */
function markdownPieces(
  markdown: string,
  limit: number,
  measure: (doc: Parsed, piece: Root, original: Set<Nodes>) => number,
) {
  const doc = parseMarkdown(markdown);
  const original = nodesOf(doc.tree);
  return splitTree(doc.tree, limit, (piece) => measure(doc, piece, original))
    .map((piece) => markdownOf(doc, piece, original))
    .filter((piece) => piece.trim() !== "");
}

/**
 * Slack: Markdown pieces each rendering within `limit` both as mrkdwn (chat.postMessage, chat.update)
 * and as markdown_text (the stream methods); the adapter renders a piece when it sends it.
 */
export const slackPieces = (markdown: string, limit: number) =>
  markdownPieces(markdown, limit, (doc, piece, original) => {
    // Measured as it will be sent, rendered both ways: whole blocks are sent as their source, so
    // their tree is the one parsed; a piece holding a written-back part is parsed again.
    const whole = piece.children.every((block) => original.has(block));
    const again = whole ? doc : parseMarkdown(markdownOf(doc, piece, original));
    const tree = whole ? piece : again.tree;
    return Math.max(renderMrkdwn(again, tree).length, renderSlackMarkdown(again, tree).length);
  });

/** E-mail: Markdown pieces of at most `limit` characters, each rendered as text and HTML at send. */
export const mailPieces = (markdown: string, limit: number) =>
  markdownPieces(markdown, limit, (doc, piece, original) => markdownOf(doc, piece, original).length);
