// Streamed replies on Discord: the first update posts the message, later ones edit it, and the
// reply's final piece is one last edit. Discord has no native streaming, and message edits are
// rate limited per channel (https://docs.discord.com/developers/topics/rate-limits: per route, per
// top-level resource), so edits of one channel start at least `minEditGapMs` apart whoever makes
// them, and after the previous one's answer (Discord counts an edit when it arrives); a 429 on a
// preview edit skips that update (the outbox honours retry_after for the final one).
import { randomUUID } from "node:crypto";
import {
  type DraftIds,
  EditPacing,
  isGatewaySendError,
  type ReplyStream,
  type SendOptions,
  type SendResult,
  type StreamOptions,
} from "@agentsvc/adapter-kit";
import type { DiscordRest } from "./api.js";

/** Edits of one channel start at least this far apart (Discord shows about 5 per 5 s per channel). */
export const MIN_EDIT_GAP_MS = 1_050;

export class DiscordStreams {
  /** When each channel's next edit may start (channels not paced lately are forgotten). */
  readonly #pacing: EditPacing;

  constructor(
    private readonly rest: () => DiscordRest,
    private readonly post: (
      thread: string,
      text: string,
      options: SendOptions,
      signal?: AbortSignal,
    ) => Promise<SendResult>,
    minEditGapMs = MIN_EDIT_GAP_MS,
  ) {
    this.#pacing = new EditPacing(() => minEditGapMs);
  }

  open(thread: string, options: StreamOptions): ReplyStream {
    let messageId = typeof options.previous?.messageId === "string" ? options.previous.messageId : undefined;
    const meta = options.meta;
    // The post's nonce: this stream's own (a repeated post of its preview returns the first one),
    // never another reply's in the same channel.
    const key = `stream:${thread}:${randomUUID()}`;
    return {
      update: async (text, signal) => {
        if (messageId && (await this.#edit(thread, messageId, text, signal))) return undefined;
        const sent = await this.post(
          thread,
          text,
          { idempotencyKey: key, attempt: 1, ...(meta ? { meta } : {}) },
          signal,
        );
        messageId = sent.messageId;
        return messageId ? ({ messageId } satisfies DraftIds) : undefined;
      },
    };
  }

  /** The final edit; a draft deleted meanwhile gets the final text as a new message. */
  async finish(thread: string, draft: DraftIds, text: string, options: SendOptions): Promise<SendResult> {
    const messageId = typeof draft.messageId === "string" ? draft.messageId : undefined;
    if (messageId && (await this.#edit(thread, messageId, text))) return { messageId };
    return this.post(thread, text, options);
  }

  /** False when the message is gone (404, 10008 Unknown Message); other failures throw. */
  async #edit(thread: string, messageId: string, text: string, signal?: AbortSignal): Promise<boolean> {
    await this.#pacing.wait(thread);
    signal?.throwIfAborted();
    try {
      // Rate limited: no edit of this channel before Discord's retry_after.
      await this.#pacing.limited(thread, () =>
        this.rest().call("PATCH", `/channels/${thread}/messages/${messageId}`, { content: text }, signal),
      );
      return true;
    } catch (err) {
      if (isGatewaySendError(err) && err.status === 404) return false;
      throw err;
    }
  }
}
