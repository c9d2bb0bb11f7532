// The tree -> Slack mrkdwn (https://docs.slack.dev/messaging/formatting-message-text): `*bold*`,
// `_italic_`, `~strike~`, `<url|text>`, code as written; `&`, `<`, `>` escaped as `&amp;` `&lt;`
// `&gt;` (the only three escapes). Headings are bold lines, tables a code block.
import type { Nodes } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { itemBody, joinBlocks, itemHead, type Parsed, parseMarkdown, sourceOf } from "./parse.js";
import { tableText } from "./table.js";

export const escapeMrkdwn = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// A link's text cannot hold `|` or `>` in `<url|text>`; the visible text keeps a look-alike.
const linkText = (s: string) => escapeMrkdwn(s.replace(/\|/g, "∣").replace(/\n/g, " "));

function link(url: string, text: string): string {
  const target = escapeMrkdwn(url).replace(/\|/g, "%7C");
  return text && text !== url ? `<${target}|${linkText(text)}>` : `<${target}>`;
}

export function renderMrkdwn(doc: Parsed, node: Nodes): string {
  const render = renderMrkdwn;
  const kids = (n: Nodes & { children: Nodes[] }) => n.children.map((c) => render(doc, c)).join("");
  const blocks = (n: Nodes & { children: Nodes[] }) => joinBlocks(doc, n.children, (c) => render(doc, c));
  switch (node.type) {
    case "root":
      return blocks(node);
    case "paragraph":
      return kids(node);
    case "text":
      return escapeMrkdwn(node.value);
    case "strong":
      return `*${kids(node)}*`;
    case "emphasis":
      return `_${kids(node)}_`;
    case "delete":
      return `~${kids(node)}~`;
    case "inlineCode":
      return `\`${escapeMrkdwn(node.value)}\``;
    case "break":
      return "\n";
    case "link":
      return link(node.url, plain(node));
    case "image":
      return link(node.url, node.alt ?? "");
    case "heading":
      return `*${kids(node)}*`;
    case "code":
      return `\`\`\`\n${escapeMrkdwn(node.value)}\n\`\`\``;
    case "blockquote":
      return blocks(node).replace(/^/gm, "> ");
    case "list":
      return blocks(node);
    case "listItem": {
      const head = itemHead(doc, node);
      return `${head}${itemBody(doc, node.children, head.length, (c) => render(doc, c))}`;
    }
    case "table":
      return `\`\`\`\n${escapeMrkdwn(tableText(node))}\n\`\`\``;
    case "thematicBreak":
      return "———";
    case "definition":
      return "";
    case "footnoteReference":
      return `[${escapeMrkdwn(node.label ?? node.identifier)}]`;
    case "footnoteDefinition":
      return `[${escapeMrkdwn(node.label ?? node.identifier)}] ${blocks(node)}`;
    case "linkReference":
    case "imageReference":
      return escapeMrkdwn(plain(node) || sourceOf(doc, node));
    default:
      return escapeMrkdwn(sourceOf(doc, node));
  }
}

/** The model's Markdown as Slack mrkdwn. */
export function toMrkdwn(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderMrkdwn(doc, doc.tree);
}
