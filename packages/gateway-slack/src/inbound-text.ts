// Slack's message text -> the text the agent reads (https://docs.slack.dev/messaging/formatting-message-text,
// "Escaping text" and "Advanced formatting"): Slack escapes `&`, `<` and `>` as `&amp;` `&lt;`
// `&gt;`, and writes links, mentions and special tokens between angle brackets. Unescaped here, so
// the agent reads `a < b && c` and a reply quoting it is not escaped twice.

import { unescapeMrkdwn } from "./format.js";

/** One `<...>` token, read: a link becomes Markdown (or the bare URL), a mention its `@`/`#` name. */
function token(body: string): string {
  const bar = body.indexOf("|");
  const target = bar < 0 ? body : body.slice(0, bar);
  const label = bar < 0 ? undefined : unescapeMrkdwn(body.slice(bar + 1));
  // <@U123> / <@U123|name>: a user; <#C123> / <#C123|general>: a channel.
  if (target.startsWith("@")) return `@${label ?? target.slice(1)}`;
  if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
  // <!here>, <!channel>, <!everyone>; <!subteam^S123|@team>; <!date^...|fallback>: what a reader sees.
  if (target.startsWith("!")) {
    if (label !== undefined) return label;
    const name = target.slice(1).split("^")[0] ?? "";
    return `@${name}`;
  }
  const url = unescapeMrkdwn(target);
  if (label === undefined || label === url || `mailto:${label}` === url) return label ?? url;
  return `[${label}](${url})`;
}

/** Slack's escaped text -> plain text with Markdown links. */
export function readSlackText(text: string): string {
  return text
    .split(/(<[^<>]*>)/)
    .map((part, i) => (i % 2 === 1 ? token(part.slice(1, -1)) : unescapeMrkdwn(part)))
    .join("");
}
