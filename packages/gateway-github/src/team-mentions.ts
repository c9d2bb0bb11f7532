// Team mentions in the bot's comments. GitHub notifies every member of a team for `@org/team`, and
// only an organization member may mention a team ("Visible teams can be viewed and @mentioned by
// every organization member",
// https://docs.github.com/en/organizations/organizing-members-into-teams/changing-team-visibility);
// the bot's account (a member, or an App installed on the organization) may, a visitor who is not a
// member may not. So a visitor who gets the agent to repeat `@org/team` would notify the whole
// team through the bot: the bot's comments carry it with a zero-width joiner after the `@` (shown
// the same, no longer a mention). `@user` is left as written: anyone who can comment can mention
// any user themselves, so repeating one gives a visitor nothing, and the bot names people on
// purpose ("@alice, done"). Mentions are read in the rendered comment's text, outside code and
// links (https://docs.github.com/en/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax#mentioning-people-and-teams):
// those are left as written, so a command like `npm i @angular/core` in code still copies as is.
import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/** U+200D: no login or team name starts with it, and it shows nothing. */
const ZWJ = "\u200d";

/** An `@` starting `org/team`: a login (letters, digits, `-`), a slash, a team slug's first character. */
const TEAM = /@(?=[a-z\d][a-z\d-]*\/[\w-])/giu;

/** `markdown` with every team mention GitHub would read broken; anything else as written. */
export function quietTeamMentions(markdown: string): string {
  if (!markdown.includes("@") && !markdown.includes("&")) return markdown;
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const ranges: [number, number][] = [];
  readRanges(tree, ranges);
  const at: number[] = [];
  for (const [from, to] of ranges) {
    const { text, ends } = decoded(markdown, from, to);
    for (const m of text.matchAll(TEAM)) at.push(ends[m.index] as number);
  }
  return insertAt(markdown, at, ZWJ);
}

/**
 * The source ranges GitHub reads mentions in: text outside links, and raw HTML (its text renders).
 * Code, a link (its text and destination), an image (its alt is an attribute) are left alone.
 */
function readRanges(node: Nodes, out: [number, number][]): void {
  switch (node.type) {
    case "code":
    case "inlineCode":
    case "link":
    case "linkReference":
    case "image":
    case "imageReference":
    case "definition":
    case "footnoteReference":
      return;
    case "text":
    case "html": {
      const from = node.position?.start.offset;
      const to = node.position?.end.offset;
      if (from !== undefined && to !== undefined) out.push([from, to]);
      return;
    }
  }
  if ("children" in node) for (const child of node.children) readRanges(child, out);
}

const ESCAPABLE = /[!-/:-@[-`{-~]/;
/** A character reference: decimal, hex or named (GitHub's text is read after they are decoded). */
const REFERENCE = /&(?:#(\d{1,8})|#[xX]([\da-fA-F]{1,8})|([A-Za-z][A-Za-z\d]{0,31}));/y;
/** The named references that decode to a character of a team mention; any other ends it. */
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
