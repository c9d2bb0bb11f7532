// What of a conversation's stored history a turn's prompt carries: the summary (when the scope
// was compacted) and the most recent messages, within a message count and an optional token
// estimate. Durable memory keeps everything; only this window reaches the model, so a turn costs
// the same in a conversation of ten messages and in one of ten thousand.
import { SUMMARY_PREFIX } from "./compaction.js";
import type { AttachmentRef } from "./media.js";
import type { Message } from "./messages.js";

/** Messages a prompt carries (and window memory keeps) unless `memory.maxMessages` says otherwise. */
export const DEFAULT_WINDOW = 100;

export interface PromptWindowOptions {
  /** Most stored messages a prompt carries, besides the summary. Default 100 (`DEFAULT_WINDOW`). */
  maxMessages?: number;
  /** Estimated token budget of the window (see `estimateTokens`); unset: no token bound. */
  maxPromptTokens?: number;
}

/**
 * A rough token count: one token per 4 characters of the message's JSON (OpenAI's rule of thumb
 * for English), plus what a user message's stored files cost when they go as file parts
 * (`attachmentTokens`). Good enough to keep a prompt under a model's limit with margin; not a tokenizer.
 */
export function estimateTokens(message: Message): number {
  const text = Math.ceil(JSON.stringify(message).length / 4);
  if (message.role !== "user" || !message.attachments) return text;
  return message.attachments.reduce((n, ref) => n + attachmentTokens(ref), text);
}

/**
 * A stored file's tokens as a file part: an image ~1,600 (Anthropic's figure for a full-size image,
 * https://docs.claude.com/en/docs/build-with-claude/vision; OpenAI's high-detail tiles are of that
 * order), a PDF one token per 32 bytes but at least 1,500 (Anthropic counts 1,500-3,000 a page,
 * https://docs.claude.com/en/docs/build-with-claude/pdf-support), audio without a transcript one
 * per 128 bytes (Gemini's 32 tokens a second at ~4 KB/s of voice, https://ai.google.dev/gemini-api/docs/audio).
 * Video and refused files cost nothing beyond their note.
 */
export function attachmentTokens(ref: AttachmentRef): number {
  if (!("blob" in ref)) return 0;
  if (ref.kind === "image") return 1600;
  if (ref.contentType === "application/pdf") return Math.max(1500, Math.ceil(ref.size / 32));
  if (ref.kind === "audio" && ref.transcript === undefined) return Math.ceil(ref.size / 128);
  return 0;
}

/** True for the summary a compaction stored in place of the older messages. */
export function isSummary(message: Message | undefined): boolean {
  return message?.role === "system" && message.content.startsWith(SUMMARY_PREFIX);
}

/**
 * Cuts `recent` (oldest first, any length) to the window. Whole messages are dropped from the
 * front; tool results left at the front lose their call and are dropped too, so a call and its
 * results are never separated. The last message stays even over the token budget (unless it is
 * a tool result whose call did not fit).
 */
export function promptWindow(
  recent: readonly Message[],
  options: PromptWindowOptions = {},
  summary?: Message,
): Message[] {
  const max = Math.max(1, options.maxMessages ?? DEFAULT_WINDOW);
  let start = Math.max(0, recent.length - max);
  const budget = options.maxPromptTokens;
  if (budget !== undefined) {
    let used = summary ? estimateTokens(summary) : 0;
    let fits = recent.length;
    while (fits > start) {
      const cost = estimateTokens(recent[fits - 1] as Message);
      if (used + cost > budget && fits < recent.length) break;
      used += cost;
      fits--;
    }
    start = fits;
  }
  while (start < recent.length && recent[start]?.role === "tool") start++;
  const window = recent.slice(start);
  return summary ? [summary, ...window] : window;
}
