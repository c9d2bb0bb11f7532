// Markdown -> Slack mrkdwn (https://api.slack.com/reference/surfaces/formatting), rendered by the
// shared Markdown front end (@agentsvc/markdown): bold `*x*`, italics `_x_`, strikethrough `~x~`,
// links `<url|text>`, headings bold, `&` `<` `>` escaped; code kept.
import { toMrkdwn } from "@agentsvc/markdown";
import { chunkText } from "@agentsvc/adapter-kit";

export const markdownToMrkdwn = toMrkdwn;

/** `&lt;` `&gt;` `&amp;` back to `<` `>` `&`, the only three Slack escapes. */
export const unescapeMrkdwn = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/**
 * The reverse of markdownToMrkdwn, for the streaming methods: their `markdown_text` takes Markdown
 * (https://docs.slack.dev/reference/methods/chat.startStream), while the session hands every preview
 * over formatted. Links back to `[text](url)`, bold `**x**`, strikethrough `~~x~~`, nothing escaped.
 */
export function mrkdwnToMarkdown(mrkdwn: string): string {
  return mrkdwn
    .split(/(```[\s\S]*?```|`[^`\n]+`)/)
    .map((part, i) =>
      unescapeMrkdwn(
        i % 2 === 1
          ? part
          : part
              .replace(/<([^<>|\s]+)\|([^<>]+)>/g, "[$2]($1)")
              .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])/g, "$1**$2**")
              .replace(/(^|[^\w~])~(?!\s)([^~\n]+?)~(?![\w~])/g, "$1~~$2~~"),
      ),
    )
    .join("");
}

// Spaces inside `<...>` (links `<url|text>`, mentions) are masked while the reply is cut, so no piece
// ends inside one: a cut link shows as raw text in Slack. Restored after; lengths do not change.
const MASK = "\u{E001}";

/** chunkText's pieces (paragraph, line, space; code fences kept whole), never cut inside `<...>`. */
export function chunkMrkdwn(formatted: string, limit: number): string[] {
  if (formatted.includes(MASK)) return chunkText(formatted, limit);
  const masked = formatted.replace(/<[^<>\n]*>/g, (token) => token.replaceAll(" ", MASK));
  return chunkText(masked, limit).map((piece) => piece.replaceAll(MASK, " "));
}
