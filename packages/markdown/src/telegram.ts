// The tree -> Telegram's HTML parse mode (https://core.telegram.org/bots/api#html-style): b, i, s,
// code, pre with a language class, a href, blockquote. Only `<`, `>`, `&` are escaped in text (and
// `"` in attributes). Raw HTML the model wrote is shown as text, never interpreted.
import type { Nodes } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { itemBody, joinBlocks, itemHead, type Parsed, parseMarkdown, sourceOf } from "./parse.js";
import { tableText } from "./table.js";

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const attr = (s: string) => escapeHtml(s).replace(/"/g, "&quot;");

const pre = (code: string, lang?: string | null) =>
  `<pre><code${lang ? ` class="language-${attr(lang)}"` : ""}>${escapeHtml(code)}</code></pre>`;

export function renderTelegram(doc: Parsed, node: Nodes): string {
  const render = renderTelegram;
  const kids = (n: Nodes & { children: Nodes[] }) => n.children.map((c) => render(doc, c)).join("");
  const blocks = (n: Nodes & { children: Nodes[] }) => joinBlocks(doc, n.children, (c) => render(doc, c));
  switch (node.type) {
    case "root":
      return blocks(node);
    case "paragraph":
      return kids(node);
    case "text":
      return escapeHtml(node.value);
    case "strong":
      return `<b>${kids(node)}</b>`;
    case "emphasis":
      return `<i>${kids(node)}</i>`;
    case "delete":
      return `<s>${kids(node)}</s>`;
    case "inlineCode":
      return `<code>${escapeHtml(node.value)}</code>`;
    case "break":
      return "\n";
    case "link":
      return `<a href="${attr(node.url)}">${kids(node) || escapeHtml(node.url)}</a>`;
    case "image":
      return `<a href="${attr(node.url)}">${escapeHtml(node.alt || node.url)}</a>`;
    case "heading":
      return `<b>${kids(node)}</b>`;
    case "code":
      return pre(node.value, node.lang);
    case "blockquote":
      return `<blockquote>${blocks(node)}</blockquote>`;
    case "list":
      return blocks(node);
    case "listItem": {
      const head = itemHead(doc, node);
      return `${head}${itemBody(doc, node.children, head.length, (c) => render(doc, c))}`;
    }
    case "table":
      return pre(tableText(node));
    case "thematicBreak":
      return "———";
    case "definition":
      return "";
    case "footnoteReference":
      return `[${escapeHtml(node.label ?? node.identifier)}]`;
    case "footnoteDefinition":
      return `[${escapeHtml(node.label ?? node.identifier)}] ${blocks(node)}`;
    case "linkReference":
    case "imageReference":
      return escapeHtml(plain(node) || sourceOf(doc, node));
    default:
      return escapeHtml(sourceOf(doc, node));
  }
}

/** The model's Markdown as Telegram HTML; code spans and blocks are escaped verbatim. */
export function toTelegramHtml(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderTelegram(doc, doc.tree);
}
