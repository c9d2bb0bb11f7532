// A signed delivery -> the comment (or review summary) for the bot, or a reason to ignore it.
// Which comments are for the bot: `@<botName>` followed by the end of the text or a character that
// cannot continue a login; and which are the bot's own or another bot's (the loop guard). Payloads:
// https://docs.github.com/en/webhooks/webhook-events-and-payloads (issue_comment,
// pull_request_review_comment, pull_request_review).
import type { GitHubThread } from "./thread.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export const COMMENT_EVENTS = new Set([
  "issue_comment",
  "pull_request_review_comment",
  "pull_request_review",
]);

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

export function readComment(event: string, p: Json, botName: string): { ignore: string } | Comment {
  const review = event === "pull_request_review";
  if (p.action !== (review ? "submitted" : "created")) return { ignore: `action ${String(p.action)}` };
  const comment = isObject(review ? p.review : p.comment)
    ? ((review ? p.review : p.comment) as Json)
    : undefined;
  const repo = isObject(p.repository) ? p.repository : undefined;
  const user = isObject(comment?.user) ? comment.user : undefined;
  const owner = isObject(repo?.owner) ? String(repo.owner.login ?? "") : "";
  const name = String(repo?.name ?? "");
  const body = typeof comment?.body === "string" ? comment.body : "";
  const commentId = numberOf(comment?.id);
  const writtenAt = Date.parse(String((review ? comment?.submitted_at : comment?.created_at) ?? ""));
  if (!comment || !user || !owner || !name || commentId === undefined)
    return { ignore: "incomplete payload" };
  if (Number.isNaN(writtenAt)) return { ignore: "no creation time" };
  const login = String(user.login ?? "");
  if (isOwnComment({ login, type: String(user.type ?? "") }, body, botName))
    return { ignore: "own or bot comment" };
  const text = mentionedText(body, botName);
  if (text === undefined) return { ignore: "no mention" };
  if (text === "") return { ignore: "a bare mention" };
  const author = { id: String(user.id ?? login), login };
  const base = { text, commentId, author, writtenAt };
  if (event === "issue_comment") {
    const number = numberOf(isObject(p.issue) ? p.issue.number : undefined);
    if (number === undefined) return { ignore: "no issue number" };
    const thread: GitHubThread = { kind: "issue", owner, repo: name, number };
    return { ...base, thread, dedupKey: `issue-comment:${commentId}` };
  }
  const pull = numberOf(isObject(p.pull_request) ? p.pull_request.number : undefined);
  if (pull === undefined) return { ignore: "no pull request number" };
  if (review) {
    // A review summary belongs to the pull request's conversation, where the answer goes.
    const thread: GitHubThread = { kind: "issue", owner, repo: name, number: pull };
    return { ...base, thread, dedupKey: `review:${commentId}` };
  }
  const root = numberOf(comment.in_reply_to_id) ?? commentId;
  const thread: GitHubThread = { kind: "review", owner, repo: name, root };
  return { ...base, thread, pull, dedupKey: `review-comment:${commentId}` };
}

/** A comment (or review summary) for the bot, read from a signed delivery. */
export interface Comment {
  thread: GitHubThread;
  pull?: number;
  text: string;
  commentId: number;
  /** Unique per comment across the three events; the inbox dedup key. */
  dedupKey: string;
  /** `created_at` (`submitted_at` for a review), ms epoch. */
  writtenAt: number;
  author: { id: string; login: string };
}

export function numberOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) ? v : undefined;
}

/** JSON body, or a form body with a `payload` field (the webhook's other content type). */
export function readPayload(rawBody: Uint8Array, contentType: string): Json | undefined {
  const text = Buffer.from(rawBody).toString("utf8");
  try {
    const raw = contentType.startsWith("application/x-www-form-urlencoded")
      ? new URLSearchParams(text).get("payload")
      : text;
    const parsed: unknown = raw === null ? undefined : JSON.parse(raw);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
