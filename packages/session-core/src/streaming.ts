// Replies that stream into the chat while a turn runs. The stream is a preview: the session
// follows the run's text deltas (never its reasoning) and hands the text so far to the gateway at
// most once per interval, never while its previous call is in flight, and never making the turn
// wait for the platform. The final message is the reply's first outbox piece: the sender finishes
// the draft with it (`finishDraft`). The draft's platform ids are kept in the gateway's durable
// state under the reply's key, so after a crash the rerun turn takes the same draft up again and
// the outbox finishes it: the user ends with one complete message.
import type { RunHandle } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import { chunkText } from "@agentsvc/adapter-kit";
import type { DraftIds, Gateway, ReplyStream } from "./gateway.js";
import { textPieces } from "./replies.js";
import type { SessionStore } from "./store.js";

/** How often a streamed preview is updated when the entry does not say. */
export const DEFAULT_STREAM_INTERVAL_MS = 1_000;

/** How long one preview update may take before it is aborted (the session's `streamUpdateTimeoutMs`). */
export const DEFAULT_STREAM_UPDATE_TIMEOUT_MS = 10_000;

export interface StreamSettings {
  /** Entry key `streaming` (default true where the platform can stream). */
  enabled: boolean;
  /** Entry key `streamIntervalMs`: least time between two preview updates of one reply. */
  intervalMs: number;
}

/** The gateway-state key of the text a reply finalised before an approval request. */
export function prefixKey(inboxId: number): string {
  return `prefix:in${inboxId}`;
}

/** The gateway-state key of a reply's draft (one per inbound message). */
export function draftKey(inboxId: number): string {
  return `draft:in${inboxId}`;
}

interface DraftRecord {
  thread: string;
  ids: DraftIds;
  at: number;
}

/**
 * The first message's worth of `text`, formatted and cut as the final reply will be. Only the start
 * of the text decides the first piece, so only a window is cut (work in proportion to the first
 * piece, not to a reply that keeps growing): the text up to a block boundary within twice the
 * limit, doubled until it yields a third piece (the first one's end was settled inside it) or
 * covers the text. The window ends where a new block starts after a blank line (outside a code
 * fence, not a list item, quote or indented line, which could belong to the block before), so every
 * block in it parses as in the whole text. A reference or footnote definition (`[1]: https://...`)
 * anywhere can change earlier text, so a text holding one is cut whole, as the final message is.
 */
export function firstPiece(gateway: Gateway, text: string): string {
  if (!REFERENCE_DEFINITION.test(text)) {
    for (let window = 2 * gateway.messageLimit; window < text.length; window *= 2) {
      const end = lastBlockStart(text, window);
      if (end === undefined) continue;
      const pieces = piecesOf(gateway, text.slice(0, end));
      if (pieces.length >= 3) return pieces[0] ?? "";
    }
  }
  return piecesOf(gateway, text)[0] ?? "";
}

// CommonMark link reference definition (and GFM footnote definition): [label]: at a line's start.
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
// Code fence opening or closing line (CommonMark: up to three spaces, three or more ` or ~).
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// A line after a blank one that may still belong to the block before: indented, a list item, a quote.
const MAY_CONTINUE = /^(\s|[-*+](\s|$)|\d{1,9}[.)](\s|$)|>)/;

/** Where the last block starting after a blank line, outside a fence, begins within `text[0, limit)`. */
function lastBlockStart(text: string, limit: number): number | undefined {
  let found: number | undefined;
  let fence: string | undefined;
  let blankBefore = false;
  for (let at = 0; at < limit; ) {
    const end = text.indexOf("\n", at);
    const lineEnd = end === -1 ? text.length : end;
    const line = text.slice(at, lineEnd);
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (
        marker &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        !line.trim().slice(marker.length).trim()
      )
        fence = undefined;
    } else {
      if (blankBefore && line.trim() !== "" && !MAY_CONTINUE.test(line) && at > 0) found = at;
      if (marker) fence = marker;
    }
    blankBefore = line.trim() === "";
    if (end === -1) break;
    at = end + 1;
  }
  return found;
}

function piecesOf(gateway: Gateway, text: string): string[] {
  const formatted = gateway.format ? gateway.format(text) : text;
  return gateway.chunk ? gateway.chunk(formatted) : chunkText(formatted, gateway.messageLimit);
}

/** What ends a streamed reply that was cancelled (a failed one ends with its failure text). */
export const CANCELLED_NOTE = "(stopped)";

/** One reply's preview: text in, throttled `update` calls out. */
class Preview {
  #text = "";
  #shown = "";
  #lastAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #inflight: Promise<void> | undefined;
  #closed = false;
  #stream: ReplyStream | undefined;
  /** Platform calls made for this preview (bench and tests). */
  calls = 0;

  /** Text already finalised before an approval: not shown again (a replayed log starts with it). */
  skip: Promise<string>;

  constructor(
    private readonly gateway: Gateway,
    private readonly open: () => Promise<ReplyStream | undefined>,
    private readonly intervalMs: number,
    private readonly keep: (ids: DraftIds) => Promise<void>,
    private readonly logger: Logger,
    skip: Promise<string>,
    private readonly timeoutMs: number,
  ) {
    this.skip = skip;
  }

  /** The reply's text so far, without what was finalised before. */
  async text(): Promise<string> {
    const skip = await this.skip;
    return skip && this.#text.startsWith(skip) ? this.#text.slice(skip.length).trimStart() : this.#text;
  }

  push(delta: string): void {
    if (this.#closed || !delta) return;
    this.#text += delta;
    this.#schedule();
  }

  /** No update after this resolves: the one in flight has settled. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#inflight) await this.#inflight;
  }

  #schedule(): void {
    if (this.#closed || this.#timer || this.#inflight) return;
    const wait = Math.max(0, this.#lastAt + this.intervalMs - Date.now());
    this.#timer = setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#closed) return;
    const next = firstPiece(this.gateway, this.#text);
    if (next === this.#shown || next.trim() === "") return;
    this.#lastAt = Date.now();
    this.#shown = next;
    this.calls += 1;
    // The turn's commit waits for the update in flight (close), so the wait is bounded: past the
    // bound the call is aborted and counted as settled, even if the adapter ignores the signal.
    const signal = AbortSignal.timeout(this.timeoutMs);
    const call = (async () => {
      const skip = await this.skip;
      const shown = skip ? firstPiece(this.gateway, await this.text()) : next;
      if (!shown.trim()) return;
      this.#stream ??= await this.open();
      const ids = await this.#stream?.update(shown, signal);
      // Given up on: the draft it made is no longer this reply's (the final message may be out).
      if (ids && !signal.aborted) await this.keep(ids);
    })();
    this.#inflight = Promise.race([call, abortedBy(signal)])
      .catch((err: unknown) => {
        // A preview that failed is only a preview: the final message still goes out. A refused
        // edit (a 429 while the platform paces edits) is routine: debug. One that held the turn
        // until the bound is not: warn, without the stack.
        if (signal.aborted)
          this.logger.warn(
            { err: err instanceof Error ? err.message : String(err), timeoutMs: this.timeoutMs },
            "stream update timed out; aborted",
          );
        this.logger.debug({ err }, "stream update failed");
      })
      .finally(() => {
        this.#inflight = undefined;
        if (firstPiece(this.gateway, this.#text) !== this.#shown) this.#schedule();
      });
    // The race's loser must not surface as an unhandled rejection.
    call.catch(() => {});
  }
}

/** Rejects with the signal's reason once it aborts. */
function abortedBy(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** The live previews of this process, and the drafts in the durable gateway state. */
export class Previews {
  readonly #live = new Map<string, Preview>();

  constructor(
    private readonly store: SessionStore,
    private readonly loggerFor: (gateway: Gateway) => Logger,
    private readonly updateTimeoutMs = DEFAULT_STREAM_UPDATE_TIMEOUT_MS,
  ) {}

  /** Follows `handle`'s text into a preview of the reply to `inboxId`, when the gateway and entry stream. */
  follow(
    gateway: Gateway,
    thread: string,
    inboxId: number,
    handle: RunHandle,
    settings: StreamSettings,
    meta?: Record<string, unknown>,
  ): void {
    if (!settings.enabled || !gateway.capabilities.streaming || !gateway.stream || !gateway.finishDraft)
      return;
    const key = draftKey(inboxId);
    const liveKey = `${gateway.name}\n${key}`;
    const logger = this.loggerFor(gateway);
    const open = async () => {
      const previous = await this.store.gatewayState.get<DraftRecord>(gateway.name, key);
      return gateway.stream?.(thread, {
        ...(meta ? { meta } : {}),
        ...(previous?.ids ? { previous: previous.ids } : {}),
      });
    };
    const keep = (ids: DraftIds) =>
      this.store.gatewayState.set(gateway.name, key, { thread, ids, at: Date.now() } satisfies DraftRecord);
    const skip = this.store.gatewayState
      .get<string>(gateway.name, prefixKey(inboxId))
      .then((v) => v ?? "")
      .catch(() => "");
    const preview = new Preview(gateway, open, settings.intervalMs, keep, logger, skip, this.updateTimeoutMs);
    void this.#live.get(liveKey)?.close();
    this.#live.set(liveKey, preview);
    void (async () => {
      try {
        for await (const event of handle.events()) {
          // Only the answer's text: reasoning and tool-call fragments never reach the platform.
          const content = event.chunk.choices[0]?.delta.content;
          if (content) preview.push(content);
        }
      } catch (err) {
        logger.debug({ err }, "stream: reading the run's events failed");
      }
    })();
  }

  /**
   * The sender is about to send the reply's first piece: stops its preview (the last update has
   * settled) and returns the draft to finish, if one was made.
   */
  async take(gateway: Gateway, key: string): Promise<DraftIds | undefined> {
    const liveKey = `${gateway.name}\n${key}`;
    const live = this.#live.get(liveKey);
    if (live) {
      await live.close();
      if (this.#live.get(liveKey) === live) this.#live.delete(liveKey);
    }
    return (await this.store.gatewayState.get<DraftRecord>(gateway.name, key))?.ids;
  }

  /**
   * The run suspended on an approval mid-reply: the text streamed so far is finalised as its own
   * message (its pieces queued, the first finishing the draft, whose ids travel with the piece)
   * before the request is queued, and remembered so the reply at the end of the turn does not
   * repeat it. Runs inside the thread's lock, before the request is enqueued.
   */
  async finalise(
    gateway: Gateway,
    thread: string,
    inboxId: number,
    meta?: Record<string, unknown>,
  ): Promise<void> {
    const key = draftKey(inboxId);
    const liveKey = `${gateway.name}\n${key}`;
    const live = this.#live.get(liveKey);
    if (!live) return;
    this.#live.delete(liveKey);
    await live.close();
    const record = await this.store.gatewayState.get<DraftRecord>(gateway.name, key);
    const text = await live.text();
    if (!record || !text.trim()) return;
    const before = (await live.skip) || "";
    await this.store.transaction(async () => {
      const pieces = textPieces(
        gateway,
        thread,
        text,
        `${gateway.name}:in${inboxId}:pre${before.length}`,
        meta,
      );
      const first = pieces[0];
      if (first) first.payload = { ...(first.payload as object), draftIds: record.ids };
      await this.store.outbox.enqueue(pieces);
      await this.store.gatewayState.delete(gateway.name, key);
      await this.store.gatewayState.set(
        gateway.name,
        prefixKey(inboxId),
        `${before}${before ? " " : ""}${text}`,
      );
    });
  }

  /**
   * The turn is about to commit its reply: no update starts after this resolves, and the one in
   * flight has settled. The preview stays known, so `cutShort` still reads what it said.
   */
  async close(gateway: Gateway, key: string): Promise<void> {
    await this.#live.get(`${gateway.name}\n${key}`)?.close();
  }

  /** Stops a reply's preview without finishing it (the run suspended or ended without a reply). */
  async stop(gateway: Gateway, key: string): Promise<void> {
    const liveKey = `${gateway.name}\n${key}`;
    const live = this.#live.get(liveKey);
    this.#live.delete(liveKey);
    await live?.close();
  }

  /**
   * The reply of a turn cancelled or failed mid-stream: what the preview had said so far, then
   * `note` (or the cancelled note), so its draft is finished instead of left half-written. A reply
   * that never streamed is `note` alone (nothing, for a cancelled turn). A draft a crashed process
   * left, whose text this process never saw, ends as the note.
   */
  async cutShort(gateway: Gateway, inboxId: number, note: string): Promise<string> {
    const key = draftKey(inboxId);
    const live = this.#live.get(`${gateway.name}\n${key}`);
    const drafted =
      (live?.calls ?? 0) > 0 || (await this.store.gatewayState.get(gateway.name, key)) !== undefined;
    if (!drafted) return note;
    const said = live ? (await live.text()).trim() : "";
    const ending = note || CANCELLED_NOTE;
    return said ? `${said}\n\n${ending}` : ending;
  }

  /** The text finalised before an approval (forgotten now: the turn is committing). */
  async takePrefix(gateway: Gateway, inboxId: number): Promise<string> {
    const prefix = await this.store.gatewayState.get<string>(gateway.name, prefixKey(inboxId));
    if (prefix !== undefined) await this.store.gatewayState.delete(gateway.name, prefixKey(inboxId));
    return prefix ?? "";
  }

  /** The final message went out: the draft is no longer anyone's. */
  async finished(gateway: Gateway, key: string): Promise<void> {
    await this.store.gatewayState.delete(gateway.name, key);
  }

  /** Stops every preview (shutdown). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#live.values()].map((p) => p.close()));
    this.#live.clear();
  }
}
