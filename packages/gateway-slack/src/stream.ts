// Streamed replies on Slack. In a channel thread the reply is a native AI-app stream
// (https://docs.slack.dev/reference/methods/chat.startStream, chat.appendStream, chat.stopStream):
// started with the text so far, each update appends what is new, and the final piece stops the
// stream and sets the message to the final text with chat.update. A DM conversation (no thread),
// a workspace that refuses the stream methods, or a preview that is no longer a prefix of the last
// one falls back to chat.postMessage then chat.update. After a crash the content of a stream is not
// known, so the restarted turn stops it and goes on with chat.update. Slack limits each method per
// workspace (https://docs.slack.dev/apis/web-api/rate-limits: appendStream Tier 4, update Tier 3,
// stopStream Tier 2); a 429 holds every later call of that method until its Retry-After.
import {
  type DraftIds,
  isGatewaySendError,
  type ReplyStream,
  type SendOptions,
  type SendResult,
  type StreamOptions,
} from "@agentsvc/adapter-kit";
import { markdownToMrkdwn, toSlackMarkdown } from "./format.js";
import { parseThread } from "./thread.js";

export interface SlackStreamApi {
  /** A Web API call; `signal` aborts it (a preview update the session gave up on). */
  call(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** chat.postMessage of a reply's Markdown piece, as the gateway sends one. */
  send(thread: string, piece: string, signal?: AbortSignal): Promise<SendResult>;
  /** A channel thread the bot posts into is remembered as answered. */
  answered(thread: string): Promise<void> | undefined;
}

type Mode = "stream" | "post";

export class SlackStreams {
  /** Method -> when Slack's Retry-After lets it be called again. */
  readonly #heldUntil = new Map<string, number>();

  constructor(private readonly api: SlackStreamApi) {}

  /** A Web API call that waits out its method's Retry-After and records a new one. */
  async #call(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const wait = (this.#heldUntil.get(method) ?? 0) - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    signal?.throwIfAborted();
    try {
      return await this.api.call(method, params, signal);
    } catch (err) {
      if (isGatewaySendError(err) && err.retryAfterMs !== undefined)
        this.#heldUntil.set(method, Date.now() + err.retryAfterMs);
      throw err;
    }
  }

  open(thread: string, options: StreamOptions): ReplyStream {
    const { channel, threadTs } = parseThread(thread);
    const previous = options.previous;
    let ts = typeof previous?.ts === "string" ? previous.ts : undefined;
    let mode: Mode = previous?.mode === "post" || !threadTs ? "post" : "stream";
    let orphan = ts !== undefined && mode === "stream";
    let sent = "";
    const user = typeof options.meta?.user === "string" ? options.meta.user : undefined;
    const team = typeof options.meta?.team === "string" ? options.meta.team : undefined;
    return {
      update: async (piece, signal): Promise<DraftIds | undefined> => {
        // `piece` is the reply's first Markdown piece: mrkdwn for chat.update, Markdown for the stream methods.
        const text = markdownToMrkdwn(piece);
        const markdown = toSlackMarkdown(piece);
        if (orphan && ts) {
          orphan = false;
          mode = "post";
          await this.#stop(channel, ts, signal);
          await this.#call("chat.update", { channel, ts, text }, signal);
          return { ts, mode };
        }
        if (mode === "stream" && !ts) {
          try {
            await this.api.answered(thread);
            const res = await this.#call(
              "chat.startStream",
              {
                channel,
                thread_ts: threadTs,
                markdown_text: markdown,
                ...(user ? { recipient_user_id: user } : {}),
                ...(team ? { recipient_team_id: team } : {}),
              },
              signal,
            );
            ts = String(res.ts);
            sent = markdown;
            return { ts, mode };
          } catch (err) {
            // Rate limited: held until the Retry-After, still a stream. Refused here: post and update instead.
            // Given up on (aborted): not a refusal, the next update tries the stream again.
            if (signal?.aborted || (isGatewaySendError(err) && err.retryAfterMs !== undefined)) throw err;
            mode = "post";
          }
        }
        if (mode === "stream" && ts) {
          // Only what is new is appended; a preview that rewrote earlier text waits for the final piece.
          if (!markdown.startsWith(sent) || markdown === sent) return undefined;
          await this.#call(
            "chat.appendStream",
            { channel, ts, markdown_text: markdown.slice(sent.length) },
            signal,
          );
          sent = markdown;
          return undefined;
        }
        if (!ts) {
          ts = (await this.api.send(thread, piece, signal)).messageId;
          return ts ? { ts, mode } : undefined;
        }
        await this.#call("chat.update", { channel, ts, text }, signal);
        return undefined;
      },
    };
  }

  /** Stops a stream (once; a stopped one is fine) and sets the message to the final text. */
  async finish(thread: string, draft: DraftIds, piece: string, _options: SendOptions): Promise<SendResult> {
    const { channel } = parseThread(thread);
    const ts = typeof draft.ts === "string" ? draft.ts : undefined;
    if (!ts) return this.api.send(thread, piece);
    const text = markdownToMrkdwn(piece);
    if (draft.mode === "stream") await this.#stop(channel, ts);
    try {
      await this.#call("chat.update", { channel, ts, text });
      return { messageId: ts };
    } catch (err) {
      // The preview was deleted meanwhile: the final text goes out as a new message.
      if (/message_not_found/.test(String((err as Error).message))) return this.api.send(thread, piece);
      throw err;
    }
  }

  async #stop(channel: string, ts: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.#call("chat.stopStream", { channel, ts }, signal);
    } catch (err) {
      if (!/message_not_in_streaming_state/.test(String((err as Error).message))) throw err;
    }
  }
}
