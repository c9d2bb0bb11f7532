// Streamed replies on Telegram. A private chat gets a native draft
// (https://core.telegram.org/bots/api#sendmessagedraft: a preview animated between updates of one
// non-zero draft_id, 1-4096 characters, which vanishes by itself unless a message follows), and the
// reply's final piece is an ordinary sendMessage. A group cannot take drafts (Telegram answers
// TEXTDRAFT_PEER_INVALID), so there the first update sends the message and later ones edit it, at
// least `groupEditGapMs` apart: Telegram lets a bot post about 20 messages a minute into one group
// (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this); a 429 holds the
// chat's next send or edit until its retry_after. A private chat whose draft is refused falls back
// to the group way. A draft is an ephemeral preview of about 30 s, and the session sends one only
// when the text changes: during a long tool call the same draft is sent again every
// `draftRefreshMs` (at most DRAFT_REFRESH_MAX_MS after its last change) until the reply's message.
import { randomInt } from "node:crypto";
import {
  type DraftIds,
  EditPacing,
  isGatewaySendError,
  type ReplyStream,
  type SendOptions,
  type SendResult,
  type StreamOptions,
} from "@agentsvc/adapter-kit";
import { parseThread } from "./thread.js";

/** Edits of one group chat start at least this far apart (20 a minute). */
export const GROUP_EDIT_GAP_MS = 3_000;
/** An unchanged draft is sent again this often, inside Telegram's ~30 s. */
export const DRAFT_REFRESH_MS = 20_000;
/** A draft whose text has not changed for this long is left to vanish (a turn that never ended). */
const DRAFT_REFRESH_MAX_MS = 10 * 60_000;

/** A shown draft kept alive: the timer of its next refresh and the refresh in flight. */
interface KeptDraft {
  timer: NodeJS.Timeout | undefined;
  inflight: Promise<void> | undefined;
  stopped: boolean;
}

/** `signal` aborts a preview's call (an update the session gave up on). */
export interface TelegramStreamApi {
  /** sendMessageDraft with HTML. */
  draft(thread: string, draftId: number, html: string, signal?: AbortSignal): Promise<void>;
  send(thread: string, html: string, options: SendOptions, signal?: AbortSignal): Promise<SendResult>;
  /** editMessageText with HTML; "message is not modified" is success. */
  edit(thread: string, messageId: string, html: string, signal?: AbortSignal): Promise<void>;
}

/** Private chats have positive ids (the user's id); groups and channels negative ones. */
export function isPrivate(thread: string, meta?: Record<string, unknown>): boolean {
  if (typeof meta?.chatType === "string") return meta.chatType === "private";
  return Number(parseThread(thread).chatId) > 0;
}

export class TelegramStreams {
  /** When each chat's next edit may start (chats not paced lately are forgotten). */
  readonly #pacing: EditPacing;
  /** `<thread>#<draftId>` -> the draft kept shown. */
  readonly #kept = new Map<string, KeptDraft>();

  constructor(
    private readonly api: TelegramStreamApi,
    // Stryker disable next-line ArrowFunction: the gateway always passes both pacings; the defaults serve no caller
    groupEditGapMs: () => number = () => GROUP_EDIT_GAP_MS,
    // Stryker disable next-line ArrowFunction: the gateway always passes both pacings; the defaults serve no caller
    private readonly draftRefreshMs: () => number = () => DRAFT_REFRESH_MS,
  ) {
    this.#pacing = new EditPacing(groupEditGapMs);
  }

  /** No more refreshes (the gateway stops). */
  close(): void {
    for (const kept of this.#kept.values()) this.#stopKeeping(kept);
    // Stryker disable next-line CallExpression: every entry is stopped above; a stopped entry left here is replaced by its key's next draft
    this.#kept.clear();
  }

  /** Sends the same draft again every draftRefreshMs while its text stays the same. */
  #keepShown(thread: string, draftId: number, html: string): void {
    const key = `${thread}#${draftId}`;
    // Stryker disable next-line ObjectLiteral: absent fields read as undefined, and stopped is only tested for truth
    const kept: KeptDraft = { timer: undefined, inflight: undefined, stopped: false };
    this.#kept.set(key, kept);
    const changedAt = Date.now();
    const arm = () => {
      if (kept.stopped || Date.now() - changedAt > DRAFT_REFRESH_MAX_MS) return;
      kept.timer = setTimeout(() => {
        kept.inflight = this.api.draft(thread, draftId, html).then(arm, () => {
          // A refresh refused or failed: the next real update starts keeping it again.
        });
      }, this.draftRefreshMs());
      // Stryker disable next-line CallExpression: unref only lets a process exit with a refresh armed; stop clears every timer
      kept.timer.unref();
    };
    arm();
  }

  /** Stops refreshing a draft; resolves once a refresh in flight has landed. */
  async #stopKept(thread: string, draftId: number): Promise<void> {
    const key = `${thread}#${draftId}`;
    const kept = this.#kept.get(key);
    if (!kept) return;
    this.#kept.delete(key);
    this.#stopKeeping(kept);
    await kept.inflight;
  }

  #stopKeeping(kept: KeptDraft): void {
    kept.stopped = true;
    if (kept.timer) clearTimeout(kept.timer);
  }

  open(thread: string, options: StreamOptions): ReplyStream {
    const previous = options.previous;
    let draftId = typeof previous?.draftId === "number" ? previous.draftId : undefined;
    let messageId = typeof previous?.messageId === "string" ? previous.messageId : undefined;
    let useDraft = messageId === undefined && isPrivate(thread, options.meta);
    // Handed to the session with the first draft that lands (a failed first update must not keep it
    // from the session: finish stops the draft's refreshes by that id).
    let draftKept = draftId !== undefined;
    const meta = options.meta;
    return {
      update: async (html, signal): Promise<DraftIds | undefined> => {
        if (useDraft) {
          draftId ??= randomInt(1, 2 ** 31 - 1);
          try {
            // A refresh in flight carries older text: it lands before this update, never after it.
            await this.#stopKept(thread, draftId);
            await this.api.draft(thread, draftId, html, signal);
            this.#keepShown(thread, draftId, html);
            if (draftKept) return undefined;
            draftKept = true;
            return { draftId };
          } catch (err) {
            // Drafts refused here (an older client, a chat type Telegram does not allow): edit instead.
            if (!(isGatewaySendError(err) && err.permanent)) throw err;
            useDraft = false;
          }
        }
        if (messageId) {
          const id = messageId;
          await this.#pacing.wait(thread);
          signal?.throwIfAborted();
          await this.#pacing.limited(thread, () => this.api.edit(thread, id, html, signal));
          return undefined;
        }
        await this.#pacing.wait(thread);
        signal?.throwIfAborted();
        const sent = await this.#pacing.limited(thread, () =>
          this.api.send(
            thread,
            html,
            // Stryker disable next-line StringLiteral: the Bot API has no idempotency key; the gateway's send never reads it
            { idempotencyKey: `stream:${thread}`, attempt: 1, ...(meta ? { meta } : {}) },
            signal,
          ),
        );
        messageId = sent.messageId;
        return messageId ? { messageId } : undefined;
      },
    };
  }

  /** A draft is followed by the message itself; a sent preview is edited to the final text. */
  async finish(thread: string, draft: DraftIds, html: string, options: SendOptions): Promise<SendResult> {
    // No refresh may show the draft again after the message: stop it, and let one in flight land first.
    if (typeof draft.draftId === "number") await this.#stopKept(thread, draft.draftId);
    const messageId = typeof draft.messageId === "string" ? draft.messageId : undefined;
    if (!messageId) return this.api.send(thread, html, options);
    await this.#pacing.wait(thread);
    try {
      await this.#pacing.limited(thread, () => this.api.edit(thread, messageId, html));
      return { messageId };
    } catch (err) {
      // The preview was deleted meanwhile: the final text goes out as a new message.
      if (isGatewaySendError(err) && /message to edit not found/i.test(err.message))
        return this.api.send(thread, html, options);
      throw err;
    }
  }
}
