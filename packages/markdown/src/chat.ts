// The tree -> the markup of messengers without escapes: WhatsApp (`*bold*`, `_italic_`,
// `~strike~`, ``` for code; https://faq.whatsapp.com/539178204879377) and plain SMS text (markers
// dropped, code shown without its fences). Links are spelled out as `text (url)`, or the URL alone
// when the text is the URL, since neither platform has link markup.
import type { Nodes } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { itemBody, joinBlocks, itemHead, type Parsed, parseMarkdown, sourceOf } from "./parse.js";
import { tableText } from "./table.js";

interface Marks {
  strong: string;
  emphasis: string;
  delete: string;
  /** Whether code keeps its backticks and fences (WhatsApp shows them as monospace). */
  codeMarks: boolean;
}

export const spelled = (text: string, url: string) => (!text || text === url ? url : `${text} (${url})`);

function render(doc: Parsed, node: Nodes, m: Marks): string {
  const kids = (n: Nodes & { children: Nodes[] }) => n.children.map((c) => render(doc, c, m)).join("");
  const blocks = (n: Nodes & { children: Nodes[] }) => joinBlocks(doc, n.children, (c) => render(doc, c, m));
  const fence = (code: string) => (m.codeMarks ? `\`\`\`\n${code}\n\`\`\`` : code);
  switch (node.type) {
    case "root":
    case "list":
      return blocks(node);
    case "paragraph":
      return kids(node);
    case "text":
      return node.value;
    case "strong":
      return `${m.strong}${kids(node)}${m.strong}`;
    case "emphasis":
      return `${m.emphasis}${kids(node)}${m.emphasis}`;
    case "delete":
      return `${m.delete}${kids(node)}${m.delete}`;
    case "inlineCode":
      return m.codeMarks ? `\`${node.value}\`` : node.value;
    case "break":
      return "\n";
    case "link":
      return spelled(plain(node), node.url);
    case "image":
      return spelled(node.alt ?? "", node.url);
    case "heading":
      return `${m.strong}${kids(node)}${m.strong}`;
    case "code":
      return fence(node.value);
    case "blockquote":
      return blocks(node).replace(/^/gm, "> ");
    case "listItem": {
      const head = itemHead(doc, node);
      return `${head}${itemBody(doc, node.children, head.length, (c) => render(doc, c, m))}`;
    }
    case "table":
      return fence(tableText(node));
    case "thematicBreak":
      return "———";
    case "definition":
      return "";
    case "footnoteReference":
      return `[${node.label ?? node.identifier}]`;
    case "footnoteDefinition":
      return `[${node.label ?? node.identifier}] ${blocks(node)}`;
    case "linkReference":
    case "imageReference":
      return plain(node) || sourceOf(doc, node);
    default:
      return sourceOf(doc, node);
  }
}

const WHATSAPP: Marks = { strong: "*", emphasis: "_", delete: "~", codeMarks: true };
const PLAIN: Marks = { strong: "", emphasis: "", delete: "", codeMarks: false };

export const renderWhatsApp = (doc: Parsed, node: Nodes) => render(doc, node, WHATSAPP);
export const renderPlainText = (doc: Parsed, node: Nodes) => render(doc, node, PLAIN);

/** The model's Markdown in WhatsApp's own markers. */
export function toWhatsApp(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderWhatsApp(doc, doc.tree);
}

/** The model's Markdown as plain text (SMS): the words, without markers or code fences. */
export function toPlainText(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderPlainText(doc, doc.tree);
}
