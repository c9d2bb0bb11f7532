// Mentions a platform would read in a text the bot sends, broken where they stand: the text is read
// as the platform reads it (Markdown parsed with GFM, backslash escapes and character references
// decoded, only the source ranges the platform reads words in), and a zero-width joiner goes after
// each `@` the platform's own pattern matches, in the source, so the text shows the same and
// everything else stays as written. The gateways say what they read (gateway-mattermost's
// channel-wide words, gateway-github's team mentions).
import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export type { Nodes as MarkdownNode } from "mdast";

/** U+200D: no login, team or mention word starts with it, platforms cut words at it, and it shows nothing. */
const ZWJ = "\u200d";

export interface MentionReading {
  /** Matches (global flag) at an `@` that starts a mention, in the decoded text of one range. */
  mention: RegExp;
  /** The source ranges `[from, to)` the platform reads mentions in. */
  ranges(tree: Nodes, source: string): [number, number][];
}

/** `markdown` with every mention `reading` finds broken by a zero-width joiner after its `@`. */
export function quietMentions(markdown: string, reading: MentionReading): string {
  if (!markdown.includes("@") && !markdown.includes("&")) return markdown;
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const at: number[] = [];
  for (const [from, to] of reading.ranges(tree, markdown)) {
    const { text, ends } = decoded(markdown, from, to);
    for (const m of text.matchAll(reading.mention)) at.push(ends[m.index] as number);
  }
  return insertAt(markdown, at, ZWJ);
}

/** A node's source range, when the parser gave it one. */
export function rangeOf(node: Nodes): [number, number] | undefined {
  const from = node.position?.start.offset;
  const to = node.position?.end.offset;
  return from === undefined || to === undefined ? undefined : [from, to];
}

const ESCAPABLE = /[!-/:-@[-`{-~]/;
/** A character reference: decimal or hex (up to 8 digits, as the servers read them) or named. */
const REFERENCE = /&(?:#(\d{1,8})|#[xX]([\da-fA-F]{1,8})|([A-Za-z][A-Za-z\d]{0,31}));/y;
/** The named references that decode to a character a mention is made of; any other ends a word. */
const NAMED: Readonly<Record<string, string>> = { commat: "@", sol: "/" };

/**
 * The text `source[from, to)` reads as, escapes and character references decoded, with the source
 * offset right after each decoded character (where a character inserted after it goes).
 */
function decoded(source: string, from: number, to: number): { text: string; ends: number[] } {
  let text = "";
  const ends: number[] = [];
  let i = from;
  while (i < to) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === "\\" && i + 1 < to && next !== undefined && ESCAPABLE.test(next)) {
      text += next;
      ends.push(i + 2);
      i += 2;
      continue;
    }
    if (c === "&") {
      REFERENCE.lastIndex = i;
      const m = REFERENCE.exec(source);
      if (m && REFERENCE.lastIndex <= to) {
        const char =
          m[3] !== undefined
            ? (NAMED[m[3]] ?? " ")
            : codePoint(m[1] ? Number(m[1]) : Number.parseInt(m[2] ?? "", 16));
        for (const unit of char.split("")) {
          text += unit;
          ends.push(REFERENCE.lastIndex);
        }
        i = REFERENCE.lastIndex;
        continue;
      }
    }
    text += c;
    ends.push(i + 1);
    i++;
  }
  return { text, ends };
}

function codePoint(n: number): string {
  return n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) ? "\ufffd" : String.fromCodePoint(n);
}

function insertAt(source: string, offsets: number[], insert: string): string {
  if (offsets.length === 0) return source;
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  let out = "";
  let last = 0;
  for (const at of sorted) {
    out += source.slice(last, at) + insert;
    last = at;
  }
  return out + source.slice(last);
}
