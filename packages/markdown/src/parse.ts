// The model's Markdown parsed once: CommonMark + GFM (tables, strikethrough, task lists, autolink
// literals, footnotes) into an mdast tree that every platform renderer walks. Positions are kept so
// renderers can reuse the source where the platform reads Markdown as written.
import type { ListItem, Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export interface Parsed {
  tree: Root;
  source: string;
}

export function parseMarkdown(source: string): Parsed {
  return {
    tree: fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }),
    source,
  };
}

/** The source text a node was parsed from ("" for a node without a position). */
export function sourceOf(doc: Parsed, node: Nodes): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? "" : doc.source.slice(start, end);
}

/**
 * The separator between two sibling blocks: the line breaks the source had between them (one or
 * two), so a renderer keeps the author's layout (a code fence right under a line stays there).
 */
export function gapBetween(doc: Parsed, before: Nodes, after: Nodes): string {
  const from = before.position?.end.offset;
  const to = after.position?.start.offset;
  if (from === undefined || to === undefined) return "\n\n";
  const breaks = (doc.source.slice(from, to).match(/\n/g) ?? []).length;
  return breaks >= 2 ? "\n\n" : "\n";
}

/** Blocks rendered one by one and joined with the source's gaps. */
export function joinBlocks(doc: Parsed, nodes: readonly Nodes[], render: (node: Nodes) => string): string {
  let out = "";
  nodes.forEach((node, i) => {
    const prev = nodes[i - 1];
    const text = render(node);
    if (prev && out !== "" && text !== "") out += gapBetween(doc, prev, node);
    out += text;
  });
  return out;
}

/** A list item's marker as written (`-`, `*`, `+`, `3.`, `4)`), so lists read as the model wrote them. */
export function markerOf(doc: Parsed, item: Nodes): string {
  const start = item.position?.start.offset;
  if (start === undefined) return "-";
  return /^\s*([-*+]|\d{1,9}[.)])/.exec(doc.source.slice(start, start + 12))?.[1] ?? "-";
}

/**
 * What starts a list item: its marker and task box (`- ☐ `), or as many spaces for the part of an
 * item that goes on from the previous piece.
 */
export function itemHead(doc: Parsed, item: ListItem): string {
  const check = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
  const head = `${markerOf(doc, item)} ${check}`;
  return (item.data as { continued?: boolean } | undefined)?.continued ? " ".repeat(head.length) : head;
}

/**
 * A list item's blocks after its marker: the first as rendered (a paragraph's own line breaks stay
 * as the model wrote them, lazy lines included), the following ones (a nested list, a second
 * paragraph) indented by `width` spaces under the marker.
 */
export function itemBody(
  doc: Parsed,
  nodes: readonly Nodes[],
  width: number,
  render: (node: Nodes) => string,
): string {
  const [first, ...rest] = nodes;
  if (!first) return "";
  const head = render(first);
  if (rest.length === 0) return head;
  const tail = joinBlocks(doc, rest, render).replace(/^(?=[^\n])/gm, " ".repeat(width));
  return `${head}${gapBetween(doc, first, rest[0] as Nodes)}${tail}`;
}
