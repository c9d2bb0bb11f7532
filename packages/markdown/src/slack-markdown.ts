// The tree -> the Markdown of Slack's `markdown_text` (chat.startStream / chat.appendStream,
// https://docs.slack.dev/reference/methods/chat.startStream): standard Markdown, so the tree is
// written back as CommonMark with mdast-util-to-markdown (which escapes only what would otherwise be
// markup: `&` stays `&`, `**bold**` stays bold, links stay `[text](url)`). Slack does not render
// tables there (the pipes show raw), so a table becomes a code block of aligned columns; raw HTML
// the model typed is text; an image is a link to it.
import type { Nodes, Root, RootContent } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import { type Parsed, parseMarkdown } from "./parse.js";
import { tableText } from "./table.js";

/** A copy of the tree with what markdown_text cannot show turned into what it can. */
function adapt(node: Nodes): Nodes {
  switch (node.type) {
    case "table":
      return { type: "code", value: tableText(node) };
    case "html":
      return { type: "text", value: node.value };
    case "image":
      return { type: "link", url: node.url, children: [{ type: "text", value: node.alt || node.url }] };
    case "imageReference":
      return { type: "text", value: node.alt ?? "" };
    case "definition":
      return { type: "text", value: "" };
    default:
      return "children" in node
        ? ({ ...node, children: (node.children as Nodes[]).map(adapt) } as Nodes)
        : ({ ...node } as Nodes);
  }
}

export function renderSlackMarkdown(_doc: Parsed, node: Nodes): string {
  const tree = adapt(node);
  const root: Root = tree.type === "root" ? tree : { type: "root", children: [tree as RootContent] };
  return toMarkdown(root, {
    extensions: [gfmToMarkdown()],
    bullet: "-",
    emphasis: "_",
    strong: "*",
    fence: "`",
    fences: true,
    rule: "-",
    listItemIndent: "one",
  }).replace(/\n+$/, "");
}

/** The model's Markdown as Slack's markdown_text. */
export function toSlackMarkdown(markdown: string): string {
  const doc = parseMarkdown(markdown);
  return renderSlackMarkdown(doc, doc.tree);
}
