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
import { type MarkdownNode, quietMentions, rangeOf } from "@agentsvc/markdown";

/**
 * An `@` that starts a channel-wide word: the word, then the end, a character that ends a word or
 * starts a part (`. - :`), or `_`s and those up to the word's end. Not `@allison` nor `@all_team`.
 */
const CHANNEL_WIDE = /@(?=(?:channel|all|here)(?:$|[^\p{L}\p{N}@_]|_[-.:_]*(?:$|[^\p{L}\p{N}@\-.:_])))/giu;

/** `markdown` with every channel-wide mention the server would read broken; anything else as written. */
export function quietChannelMentions(markdown: string): string {
  return quietMentions(markdown, {
    mention: CHANNEL_WIDE,
    ranges: (tree, source) => readRanges(tree, source, []),
  });
}

/**
 * The source ranges the server reads words in: text (a link's too), raw HTML (Mattermost shows it
 * as text), an image's alt and a footnote call (text to Mattermost). Code is skipped, as the server
 * skips it; a link's or image's destination is not text.
 */
function readRanges(node: MarkdownNode, source: string, out: [number, number][]): [number, number][] {
  const range = rangeOf(node);
  switch (node.type) {
    case "code":
    case "inlineCode":
    case "definition":
      return out;
    case "text":
    case "html":
    case "footnoteReference":
      if (range) out.push(range);
      return out;
    case "image":
    case "imageReference":
      if (range) out.push([range[0] + 2, altEnd(source, range[0] + 2, range[1])]);
      return out;
  }
  if ("children" in node) for (const child of node.children) readRanges(child, source, out);
  return out;
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
