// Which comments are for the bot: `@<botName>` followed by the end of the text or a character that
// cannot continue a login; and which are the bot's own (the loop guard).

export const POSTED_MARKER = "<!-- agentsvc:posted -->";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function mentionPattern(botName: string): RegExp {
  // Not inside a word or an e-mail address before it; not a longer login after it.
  return new RegExp(`(^|[^A-Za-z0-9_.@-])@${escapeRegExp(botName)}(?![A-Za-z0-9_-])`, "gi");
}

/** The text for the agent with every mention removed, or undefined when the bot is not mentioned. */
export function mentionedText(body: string, botName: string): string | undefined {
  if (botName === "") return undefined;
  const pattern = mentionPattern(botName);
  if (!pattern.test(body)) return undefined;
  return body
    .replace(mentionPattern(botName), "$1")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

export interface CommentAuthor {
  login?: string;
  type?: string;
}

/** The bot's own comment (by type, login or marker): never answered. */
export function isOwnComment(author: CommentAuthor, body: string, botName: string): boolean {
  if (author.type === "Bot") return true;
  if (botName !== "" && author.login?.toLowerCase() === `${botName}[bot]`.toLowerCase()) return true;
  return body.includes(POSTED_MARKER);
}
