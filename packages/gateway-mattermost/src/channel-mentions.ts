// Channel-wide mentions in what the bot posts. Mattermost notifies a whole channel for `@channel`,
// `@all` or `@here` when the post's AUTHOR holds the channel's "use channel mentions" permission,
// and a post has no switch to turn that off (`mentionHighlightDisabled` is a display prop the
// server sets itself when the author lacks the permission). The bot holds it, so a visitor without
// it who gets the agent to repeat the word would notify everyone with the bot's. Unless the entry
// allows them (`allowChannelMentions`), the bot's posts carry these words with a zero-width joiner
// after the `@`: shown the same, no longer a word the server reads. `@username` stays a mention.
//
// How the server reads a post (the message and each attachment's pretext and text), the facts this
// follows: the Markdown's text outside code spans and code blocks, character references and
// backslash escapes decoded, is cut into words at every character other than a letter, a digit
// and `: . - _ @`; a word is channel-wide when it is one of the three ignoring case, or is once
// trailing `. - : _` are dropped, or when a part of it between `. - :` is
// (https://docs.mattermost.com/end-user-guide/collaborate/mention-people.html; the permission,
// `use_channel_mentions`, is the "Channel Mentions" moderation of System Console > Channels).
import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/** U+200D: Mattermost cuts words at it (not a letter, digit or one of `: . - _ @`), and shows nothing. */
const ZWJ = "\u200d";

/**
 * An `@` that starts a channel-wide word: the word, then the end, a character that ends a word or
 * starts a part (`. - :`), or `_`s and those up to the word's end. Not `@allison` nor `@all_team`.
 */
const CHANNEL_WIDE = /@(?=(?:channel|all|here)(?:$|[^\p{L}\p{N}@_]|_[-.:_]*(?:$|[^\p{L}\p{N}@\-.:_])))/giu;

/** `markdown` with every channel-wide mention the server would read broken; anything else as written. */
export function quietChannelMentions(markdown: string): string {
  if (!markdown.includes("@") && !markdown.includes("&")) return markdown;
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const ranges: [number, number][] = [];
  readRanges(tree, markdown, ranges);
  const at: number[] = [];
  for (const [from, to] of ranges) {
    const { text, ends } = decoded(markdown, from, to);
    for (const m of text.matchAll(CHANNEL_WIDE)) at.push(ends[m.index] as number);
  }
  return insertAt(markdown, at, ZWJ);
}

/**
 * The source ranges the server reads words in: text (a link's too), raw HTML (Mattermost shows it
 * as text), an image's alt and a footnote call (text to Mattermost). Code is skipped, as the server
 * skips it; a link's or image's destination is not text.
 */
function readRanges(node: Nodes, source: string, out: [number, number][]): void {
  const from = node.position?.start.offset;
  const to = node.position?.end.offset;
  switch (node.type) {
    case "code":
    case "inlineCode":
    case "definition":
      return;
    case "text":
    case "html":
    case "footnoteReference":
      if (from !== undefined && to !== undefined) out.push([from, to]);
      return;
    case "image":
    case "imageReference":
      if (from !== undefined && to !== undefined) out.push([from + 2, altEnd(source, from + 2, to)]);
      return;
  }
  if ("children" in node) for (const child of node.children) readRanges(child, source, out);
}

/** Where an image's alt text ends: its `]`, brackets inside counted, escapes skipped. */
function altEnd(source: string, from: number, to: number): number {
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") depth++;
    else if (c === "]" && depth-- === 0) return i;
  }
  return to;
}

const ESCAPABLE = /[!-/:-@[-`{-~]/;
/** A character reference: decimal or hex (up to 8 digits, as the server reads them) or named. */
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
