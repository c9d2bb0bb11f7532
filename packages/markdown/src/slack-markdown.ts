// The tree -> the Markdown of Slack's `markdown_text` (chat.startStream / chat.appendStream,
// https://docs.slack.dev/reference/methods/chat.startStream): standard Markdown, so what Slack reads
// as written stays as the model wrote it (`**bold**` bold, `[text](url)` links, `&`, `<` and `>`
// unescaped: Slack shows entities there as typed); a stream appends only to what it showed, so the
// text of a growing reply must keep its start. The tree decides the one change: a table, which
// Slack shows as raw pipes there, becomes a code block of aligned columns.
import type { Nodes } from "mdast";
import { joinBlocks, type Parsed, parseMarkdown, sourceOf } from "./parse.js";
import { tableText } from "./table.js";

interface Edit {
  start: number;
  end: number;
  text: string;
}

function collect(doc: Parsed, node: Nodes, edits: Edit[]): void {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return;
  if (node.type === "table") {
    edits.push({ start, end, text: `\`\`\`\n${tableText(node)}\n\`\`\`` });
    return;
  }
  if ("children" in node) for (const child of node.children) collect(doc, child, edits);
}

/** A block's source with the edits inside it applied. */
function edited(doc: Parsed, block: Nodes): string {
  const from = block.position?.start.offset;
  if (from === undefined) return sourceOf(doc, block);
  const edits: Edit[] = [];
  collect(doc, block, edits);
  let out = "";
  let last = from;
  for (const edit of edits) {
    out += doc.source.slice(last, edit.start) + edit.text;
    last = edit.end;
  }
  return out + doc.source.slice(last, block.position?.end.offset);
}

export function renderSlackMarkdown(doc: Parsed, node: Nodes): string {
  return node.type === "root" ? joinBlocks(doc, node.children, (b) => edited(doc, b)) : edited(doc, node);
}

/** The model's Markdown as Slack's markdown_text. */
export function toSlackMarkdown(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderSlackMarkdown(doc, doc.tree);
}
