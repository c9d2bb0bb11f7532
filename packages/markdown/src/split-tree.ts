// Cutting a reply at a platform limit on the tree, before it is rendered: whole blocks are packed
// into pieces; a block too long alone is cut into smaller blocks of the same kind (a paragraph at a
// space between words, keeping the emphasis around each part; code between lines; a list between
// items; a table between rows). Every piece is a tree of its own, so its rendering is valid markup
// by construction: nothing is cut and then repaired.
import type { Nodes, Parent, PhrasingContent, Root, RootContent, Text } from "mdast";
import { toString as plain } from "mdast-util-to-string";
import { tableText } from "./table.js";

/** The platform's length of a rendered piece (UTF-16 units of its text or its visible text). */
export type Measure = (piece: Root) => number;

/** Set on the part of a list item that goes on from the previous piece (shown without its marker). */
export interface Continued {
  continued?: boolean;
}

// Blank line between two blocks: what a renderer joins them with, at most.
const GAP = 2;

const rootOf = (children: RootContent[]): Root => ({ type: "root", children });

/** The blocks of `tree` in pieces whose rendering measures at most `limit` (a lone atom may not). */
/** What a cut is fitted to: the limit, a block's measure, the text an atom too long is shown as. */
interface Fit {
  limit: number;
  one: (node: RootContent) => number;
  spell: (node: Nodes) => string;
}

const spellPlain = (node: Nodes) => plain(node) || nodeUrl(node);

/**
 * The blocks of `tree` in pieces whose rendering measures at most `limit`. A link or code span too
 * long for a piece alone is shown as text, `spell` (default its text, else its URL), cut.
 */
export function splitTree(tree: Root, limit: number, measure: Measure, spell = spellPlain): Root[] {
  const one = (node: RootContent) => measure(rootOf([node]));
  const fit: Fit = { limit, one, spell };
  const pieces: Root[] = [];
  let current: RootContent[] = [];
  let width = 0;
  const flush = () => {
    if (current.length > 0) pieces.push(rootOf(current));
    current = [];
    width = 0;
  };
  const add = (block: RootContent, w: number) => {
    if (current.length > 0 && width + GAP + w > limit) flush();
    width += (current.length > 0 ? GAP : 0) + w;
    current.push(block);
  };
  for (const block of tree.children) {
    const w = one(block);
    if (w <= limit) add(block, w);
    else for (const part of splitBlock(block, fit)) add(part, one(part));
  }
  flush();
  return pieces.filter((piece) => measure(piece) > 0);
}

/** A block cut into blocks that each measure at most `limit` where the grammar allows. */
function splitBlock(block: RootContent, fit: Fit): RootContent[] {
  switch (block.type) {
    case "paragraph":
    case "heading":
      return splitInline(block, fit);
    case "code": {
      // An info string too long to leave room for a line is dropped from the parts.
      const room = fit.one({ ...block, value: "x" }) <= fit.limit;
      return splitLines(block.value, fit, (value) => (room ? { ...block, value } : { type: "code", value }));
    }
    case "html":
      return splitInline({ type: "paragraph", children: [{ type: "text", value: block.value }] }, fit);
    case "table":
      // Shown as aligned columns in a code block where it is cut (as most platforms show any table).
      return splitLines(tableText(block), fit, (value) => ({ type: "code", value }));
    case "list":
    case "blockquote":
    case "listItem":
    case "footnoteDefinition":
      return splitContainer(block, fit);
    default:
      return [block];
  }
}

/** The largest n in [1, max] with fits(n), by bisection (0 when even 1 does not fit). */
function largest(max: number, fits: (n: number) => boolean): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function clone<T extends Parent>(node: T, children: T["children"], continued: boolean): T {
  return { ...node, children, ...(continued ? { data: { ...node.data, continued: true } } : {}) };
}

/** A list, quote or item cut between its children; a child too long alone is cut itself. */
function splitContainer(node: Parent & RootContent, { limit, one, spell }: Fit) {
  const kids = node.children as RootContent[];
  const parts: RootContent[] = [];
  let i = 0;
  const wrap = (children: RootContent[]) => {
    const part = clone(
      node,
      children as never,
      parts.length > 0 && (node.type === "listItem" || node.type === "table"),
    );
    return part;
  };
  while (i < kids.length) {
    const n = largest(kids.length - i, (k) => one(wrap(kids.slice(i, i + k))) <= limit);
    if (n > 0) {
      parts.push(wrap(kids.slice(i, i + n)));
      i += n;
      continue;
    }
    const kid = kids[i] as RootContent;
    for (const sub of splitBlock(kid, { limit, spell, one: (s) => one(wrap([s])) })) parts.push(wrap([sub]));
    i += 1;
  }
  return parts;
}

/** Code (or any text kept as lines) cut between lines; a line too long alone is cut hard. */
function splitLines(value: string, { limit, one }: Fit, make: (value: string) => RootContent): RootContent[] {
  const lines = value.split("\n");
  const parts: RootContent[] = [];
  let i = 0;
  while (i < lines.length) {
    const n = largest(lines.length - i, (k) => one(make(lines.slice(i, i + k).join("\n"))) <= limit);
    if (n > 0) {
      parts.push(make(lines.slice(i, i + n).join("\n")));
      i += n;
      continue;
    }
    const chars = Array.from(lines[i] as string);
    while (chars.length > 0) {
      const k = Math.max(
        1,
        largest(chars.length, (c) => one(make(chars.slice(0, c).join(""))) <= limit),
      );
      parts.push(make(chars.splice(0, k).join("")));
    }
    i += 1;
  }
  return parts;
}

interface Leaf {
  node: PhrasingContent;
  /** Its ancestors inside the block (emphasis, strong, strikethrough), outermost first. */
  path: Parent[];
}

const isBlank = (leaf: Leaf | undefined) =>
  leaf?.node.type === "break" || (leaf?.node.type === "text" && leaf.node.value.trim() === "");

/** Words, spaces and atoms (code spans, links, images) of a paragraph, with the marks around them. */
function leavesOf(parent: Parent, path: Parent[], out: Leaf[]): Leaf[] {
  for (const child of parent.children as PhrasingContent[]) {
    if (child.type === "text")
      for (const part of child.value.split(/(\s+)/))
        if (part) out.push({ node: { type: "text", value: part } satisfies Text, path });
    if (child.type === "strong" || child.type === "emphasis" || child.type === "delete")
      leavesOf(child, [...path, child], out);
    else if (child.type !== "text") out.push({ node: child, path });
  }
  return out;
}

/** A block of the same kind holding `leaves`, each under clones of its marks. */
function rebuild(block: Parent & RootContent, leaves: Leaf[]): RootContent {
  const top = { ...block, children: [] as Nodes[] };
  const clones = new Map<Parent, Parent>();
  for (const { node, path } of leaves) {
    let parent: Parent = top as Parent;
    for (const mark of path) {
      let copy = clones.get(mark);
      if (!copy) {
        copy = { ...mark, children: [] };
        clones.set(mark, copy);
        (parent.children as Nodes[]).push(copy as Nodes);
      }
      parent = copy;
    }
    (parent.children as Nodes[]).push(node);
  }
  return top as RootContent;
}

/** A paragraph or heading cut at spaces (else between atoms, else inside a word). */
function splitInline(block: Parent & RootContent, { limit, one, spell }: Fit) {
  const leaves = leavesOf(block, [], []);
  const parts: RootContent[] = [];
  let i = 0;
  while (i < leaves.length) {
    while (isBlank(leaves[i])) i++;
    if (i >= leaves.length) break;
    const n = largest(leaves.length - i, (k) => one(rebuild(block, leaves.slice(i, i + k))) <= limit);
    if (n === 0) {
      // One word or atom longer than the limit: its text, cut between characters.
      const leaf = leaves[i] as Leaf;
      const text = leaf.node.type === "text" ? leaf.node.value : spell(leaf.node);
      const chars = Array.from(text);
      const make = (s: string) => rebuild(block, [{ node: { type: "text", value: s }, path: leaf.path }]);
      while (chars.length > 0) {
        const k = Math.max(
          1,
          largest(chars.length, (c) => one(make(chars.slice(0, c).join(""))) <= limit),
        );
        parts.push(make(chars.splice(0, k).join("")));
      }
      i += 1;
      continue;
    }
    let end = i + n;
    if (end < leaves.length && !isBlank(leaves[end])) {
      // Back to the last space inside the piece, so no word is cut.
      let k = end - 1;
      while (k > i && !isBlank(leaves[k])) k--;
      if (k > i) end = k;
    }
    let last = end;
    while (last > i && isBlank(leaves[last - 1])) last--;
    parts.push(rebuild(block, leaves.slice(i, last)));
    i = end;
  }
  return parts;
}

const nodeUrl = (node: Nodes) => ("url" in node && typeof node.url === "string" ? node.url : "");
