// The tree -> the text/html part of a mail (sent with the text/plain one as alternatives). Only the
// tree's own elements are written (p, strong, em, del, code, pre, a, blockquote, ul/ol/li, h1-h6,
// table, hr, br); every character the model typed is escaped, raw HTML in the reply is shown as
// text, a link is live only for http(s) and mailto targets, and an image is a link to it rather
// than a remote load (mail clients block those, and they track the reader).
import type { Nodes, TableCell } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { type Parsed, parseMarkdown, sourceOf } from "./parse.js";

const escapeAll = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const SAFE_URL = /^(https?:|mailto:)/i;

function link(url: string, inner: string): string {
  return SAFE_URL.test(url)
    ? `<a href="${escapeAll(url)}">${inner || escapeAll(url)}</a>`
    : `${inner} (${escapeAll(url)})`;
}

function cell(doc: Parsed, c: TableCell, tag: "th" | "td", align: string | null | undefined): string {
  const style = align ? ` style="text-align:${align}"` : "";
  return `<${tag}${style}>${c.children.map((n) => renderMailHtml(doc, n)).join("")}</${tag}>`;
}

export function renderMailHtml(doc: Parsed, node: Nodes): string {
  const render = (n: Nodes) => renderMailHtml(doc, n);
  const kids = (n: Nodes & { children: Nodes[] }) => n.children.map(render).join("");
  const blocks = (n: Nodes & { children: Nodes[] }) => n.children.map(render).filter(Boolean).join("\n");
  switch (node.type) {
    case "root":
      return blocks(node);
    case "paragraph":
      return `<p>${kids(node)}</p>`;
    case "text":
      return escapeAll(node.value);
    case "strong":
      return `<strong>${kids(node)}</strong>`;
    case "emphasis":
      return `<em>${kids(node)}</em>`;
    case "delete":
      return `<del>${kids(node)}</del>`;
    case "inlineCode":
      return `<code>${escapeAll(node.value)}</code>`;
    case "break":
      return "<br>";
    case "link":
      return link(node.url, kids(node));
    case "image":
      return link(node.url, escapeAll(node.alt ?? ""));
    case "heading":
      return `<h${node.depth}>${kids(node)}</h${node.depth}>`;
    case "code":
      return `<pre><code>${escapeAll(node.value)}</code></pre>`;
    case "blockquote":
      return `<blockquote>${blocks(node)}</blockquote>`;
    case "list": {
      const tag = node.ordered ? "ol" : "ul";
      const start = node.ordered && node.start !== null && node.start !== undefined && node.start !== 1;
      return `<${tag}${start ? ` start="${node.start}"` : ""}>${blocks(node)}</${tag}>`;
    }
    case "listItem": {
      const check = node.checked === true ? "☑ " : node.checked === false ? "☐ " : "";
      const continued = (node.data as { continued?: boolean } | undefined)?.continued;
      // A tight item's paragraph is its text, as browsers show list items.
      const body = node.spread
        ? blocks(node)
        : node.children.map((c) => (c.type === "paragraph" ? kids(c) : render(c))).join("\n");
      return `<li${continued ? ' style="list-style:none"' : ""}>${check}${body}</li>`;
    }
    case "table": {
      const [head, ...rows] = node.children;
      const align = node.align ?? [];
      const row = (r: (typeof node.children)[number], tag: "th" | "td") =>
        `<tr>${r.children.map((c, i) => cell(doc, c, tag, align[i])).join("")}</tr>`;
      if (!head) return "";
      return `<table><thead>${row(head, "th")}</thead><tbody>${rows.map((r) => row(r, "td")).join("")}</tbody></table>`;
    }
    case "thematicBreak":
      return "<hr>";
    case "definition":
      return "";
    case "footnoteReference":
      return `<sup>[${escapeAll(node.label ?? node.identifier)}]</sup>`;
    case "footnoteDefinition":
      return `<div>[${escapeAll(node.label ?? node.identifier)}] ${blocks(node)}</div>`;
    case "linkReference":
    case "imageReference":
      return escapeAll(plain(node) || sourceOf(doc, node));
    default:
      return escapeAll(sourceOf(doc, node));
  }
}

/** The model's Markdown as the body of a text/html mail part (a fragment, UTF-8). */
export function toMailHtml(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderMailHtml(doc, doc.tree);
}
