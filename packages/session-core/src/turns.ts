// Turns of gateway threads: start, commit (inbox record done + reply queued, in the same
// transaction as the turn's messages), end, and the next queued message after it.
import { transcriptLines } from "./media-notes.js";
import {
  AgentsvcError,
  type RunHandle,
  type ToolFile,
  type TurnResult,
  fault,
  toolFilesOf,
} from "@agentsvc/agent-core";
import { filePieces } from "./file-pieces.js";
import type { HeldLock } from "./coordination.js";
import type { SessionParts } from "./parts.js";
import { failureText, type OutboxItem, replyText, textPieces } from "./replies.js";
import { afterPrefix } from "./reply-prefix.js";
import { DEFAULT_STREAM_INTERVAL_MS, draftKey } from "./streaming.js";
import type { InboxDoneStatus } from "./store.js";
import type { ActiveTurn, QueuedMessage, ThreadState } from "./threads.js";
import { startSpan, traced, withParent } from "./trace.js";

/** How the busy policy let a message's turn start: at once, after waiting in the queue, or refused (busy). */
type PolicyOutcome = "started" | "queued" | "rejected";

export class Turns {
  constructor(
    private readonly p: SessionParts,
    private readonly busyReply: string,
  ) {}

  /** Starts a turn for `msg` on an idle thread (inside the thread's lock). */
  async start(state: ThreadState, msg: QueuedMessage, policy: PolicyOutcome = "started"): Promise<void> {
    if (this.p.stopping()) {
      state.queue.unshift(msg);
      return;
    }
    if (!msg.running) await this.p.store.inbox.markRunning(msg.inboxId);
    this.p.logger.debug({ threadId: state.threadId, inboxId: msg.inboxId }, "turn starts");
    // The turn continues the trace of its inbound message (also after a restart).
    const span = this.#span(state, msg, policy);
    const traceparent = span.traceparent;
    const active: ActiveTurn = {
      inboxId: msg.inboxId,
      phase: "running",
      origin: msg.origin,
      steered: [],
      committed: false,
      unsuspended: true,
      span,
      ...(traceparent ? { traceparent } : {}),
    };
    state.active = active;
    const gateway = this.p.registry.get(state.gateway);
    // Stryker disable next-line OptionalChaining: `gateway.startTyping` differs only for a thread whose gateway is not registered (never: the registry removes none, and every path starting a turn checks it)
    if (gateway?.startTyping && gateway.capabilities.typing) {
      gateway.startTyping(state.thread, msg.origin.meta).catch((err: unknown) => {
        this.p.loggerFor(gateway).debug({ err, thread: state.thread }, "typing indicator failed");
      });
    }
    let handle: RunHandle;
    try {
      // Model and tool calls are children of the turn's span.
      handle = await withParent(traceparent, () => this.#startRun(state, msg, active));
    } catch (err) {
      span.fail(err);
      span.end();
      await this.giveUp(state, active, err, "could not start a turn");
      return;
    }
    fault("turn-started");
    this.follow(state, handle);
  }

  /**
   * What the RunManager runs when the turn ends: `beforePersist` closes the reply's preview (no
   * update starts or is still in flight once the reply is queued, else with several instances the
   * leader could finish the draft before a late update lands), then `persistWith` writes the end
   * of the turn inside the transaction that saves it.
   */
  persistHooks(
    state: ThreadState,
    active: ActiveTurn,
  ): { beforePersist: () => Promise<void>; persistWith: (result: TurnResult) => Promise<void> } {
    return {
      beforePersist: () => this.#closePreview(state, active),
      persistWith: async (result) => {
        const status: InboxDoneStatus = result.status === "failed" ? "failed" : "done";
        const reply =
          result.status === "completed"
            ? replyText(result)
            : result.status === "failed"
              ? failureText(result.error)
              : "";
        // What the agent heard of a voice note, quoted above its answer (media.showTranscript).
        const heard =
          result.status === "completed"
            ? transcriptLines(
                result.newMessages.find((m) => m.role === "user"),
                this.p.entryOptions(state.gateway).media,
              )
            : undefined;
        const text = heard && reply ? `${heard}\n\n${reply}` : reply;
        // Files a tool handed back (`{ files: [...] }`): one outbox piece each, after the text.
        const files =
          result.status === "completed"
            ? result.newMessages.flatMap((m) =>
                m.role === "tool" && !m.isError ? toolFilesOf(m.result) : [],
              )
            : [];
        await this.#commit(state, active, status, text, result.status !== "completed", files);
      },
    };
  }

  /** Waits for the run to end or suspend, then settles the thread (inside its lock). */
  follow(state: ThreadState, handle: RunHandle): void {
    const gateway = this.p.registry.get(state.gateway);
    const active = state.active;
    // Stryker disable next-line LogicalOperator: `||` differs only for a thread whose gateway is not registered (never: the registry removes none, and every path starting a turn checks it) or with no active turn (never: each caller has just set it)
    if (gateway && active) {
      const entry = this.p.entryOptions(gateway.name);
      this.p.previews.follow(
        gateway,
        state.thread,
        active.inboxId,
        handle,
        {
          enabled: entry.streaming ?? true,
          intervalMs: entry.streamIntervalMs ?? DEFAULT_STREAM_INTERVAL_MS,
        },
        active.origin.meta,
      );
    }
    this.p.track(
      handle.done.then((result) =>
        this.p.threads.with(state.gateway, state.thread, (s) => this.#onEnd(s, result)),
      ),
    );
  }

  /**
   * A turn whose run could not start or go on: its record ends failed with the failure reply and
   * the thread moves on to its next message (inside the thread's lock).
   */
  async giveUp(state: ThreadState, active: ActiveTurn, err: unknown, what: string): Promise<void> {
    this.p.logger.error({ err, threadId: state.threadId }, what);
    await this.#commitFallback(state, active, failureText(err));
    // The failure reply was queued with the record: send it now, not when something else wakes the outbox.
    this.p.sender.wake();
    await this.finish(state);
  }

  /** Next queued message of the thread, if any. */
  async finish(state: ThreadState): Promise<void> {
    state.active = undefined;
    // The turn's own request ends with it; another run's request asked in this chat (an approval
    // room someone talked in) still waits here for a typed decision.
    const pending = state.pendingRequestId
      ? await this.p.store.interactions.get(state.pendingRequestId)
      : undefined;
    if (pending?.status !== "open" || pending.threadId === state.threadId) state.pendingRequestId = undefined;
    const next = state.queue.shift();
    if (next) await this.start(state, next, "queued");
  }

  /** The busy reply of `reject` (and of a full queue): recorded as rejected with its reply, together. */
  async busy(state: ThreadState, msg: QueuedMessage): Promise<void> {
    const gateway = this.p.registry.get(state.gateway);
    const span = this.#span(state, msg, "rejected");
    span.end();
    const key = `${state.gateway}:in${msg.inboxId}:busy`;
    const pieces = gateway ? textPieces(gateway, state.thread, this.busyReply, key, msg.origin.meta) : [];
    await this.p.store.transaction(() =>
      this.#end(msg.inboxId, "rejected", traced(pieces, span.traceparent), { last: true }),
    );
    this.p.sender.wake();
  }

  /**
   * The record ended and its reply queued: one statement where the store can (PostgreSQL), checking
   * `lock` (the turn's fence) and, when `last`, committing on its own if nothing was sent before it.
   */
  async #end(
    inboxId: number,
    status: InboxDoneStatus,
    pieces: OutboxItem[],
    options: { lock?: HeldLock | undefined; last: boolean; next?: QueuedMessage | undefined },
  ): Promise<void> {
    const inbox = this.p.store.inbox;
    const { next } = options;
    if (inbox.finish) {
      await inbox.finish(inboxId, status, pieces, {
        ...(options.lock ? { lock: options.lock } : {}),
        last: options.last,
        ...(next ? { running: next.inboxId } : {}),
      });
      // Its turn starts as this one ends (finish): not marked running again then.
      if (next) next.running = true;
    } else {
      await inbox.markDone(inboxId, status);
      if (pieces.length > 0) await this.p.store.outbox.enqueue(pieces);
    }
  }

  #span(state: ThreadState, msg: QueuedMessage, policy: PolicyOutcome) {
    return startSpan(
      `turn ${state.gateway}`,
      {
        "agentsvc.gateway": state.gateway,
        "agentsvc.thread": state.thread,
        "agentsvc.inbox_id": msg.inboxId,
        "agentsvc.policy.outcome": policy,
      },
      { traceparent: msg.origin.traceparent },
    );
  }

  async #startRun(state: ThreadState, msg: QueuedMessage, active: ActiveTurn): Promise<RunHandle> {
    const input = {
      // Stored files go with the message (the run loop gives them to the model as file parts or a
      // note); refused ones were answered when the message arrived.
      input: msg.text,
      attachments: msg.attachments?.filter((r) => "blob" in r),
      threadId: state.threadId,
      userId: state.gateway,
      conversationId: state.thread,
      origin: msg.origin,
      ...this.persistHooks(state, active),
    };
    // The previous run of this thread may still be settling its bookkeeping; retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        return this.p.runs.start(input);
      } catch (err) {
        if (!(err instanceof AgentsvcError && err.code === "thread_busy") || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }

  async #onEnd(state: ThreadState, result: TurnResult): Promise<void> {
    const active = state.active;
    if (!active) return;
    if (state.lost) {
      // Another instance holds the thread now and runs this turn again: nothing is recorded here.
      this.p.forget(state);
      return;
    }
    const gateway = this.p.registry.get(state.gateway);
    active.span?.setAttribute("agentsvc.turn.outcome", result.status);
    if (result.status === "failed") active.span?.fail(result.error?.message ?? "failed");
    active.span?.end();
    if (result.status === "suspended") {
      active.phase = "suspended";
      if (gateway) await this.p.previews.stop(gateway, draftKey(active.inboxId));
      return;
    }
    // The run could not save the turn (persist failed): end the record anyway, with a failure reply.
    if (!active.committed) await this.#commitFallback(state, active, failureText(result.error));
    fault("after-commit");
    // The preview was closed before the commit; this lets go of it.
    if (gateway) await this.p.previews.stop(gateway, draftKey(active.inboxId));
    this.p.sender.wake();
    await this.finish(state);
  }

  async #commit(
    state: ThreadState,
    active: ActiveTurn,
    status: InboxDoneStatus,
    text: string,
    /** Cancelled or failed: `text` is the note (or nothing), and a streamed draft keeps what it said. */
    cutShort: boolean,
    files: ToolFile[] = [],
  ): Promise<void> {
    const gateway = this.p.registry.get(state.gateway);
    const write = async () => {
      let rest = text;
      if (gateway && !active.unsuspended) {
        // Text finalised before an approval request was sent then: only the rest is the reply.
        const before = await this.p.previews.takePrefix(gateway, active.inboxId);
        rest = afterPrefix(text, before) ?? text;
      }
      // A reply cut short mid-stream is not left half-written: its draft ends as what was said, plus the note.
      if (gateway && cutShort) rest = await this.p.previews.cutShort(gateway, active.inboxId, text);
      const pieces: OutboxItem[] = [];
      if (gateway && rest) {
        const key = `${gateway.name}:in${active.inboxId}`;
        pieces.push(
          ...traced(
            textPieces(gateway, state.thread, rest, key, active.origin.meta),
            active.traceparent ?? active.origin.traceparent,
          ),
        );
        // A streamed reply's first piece finishes its draft (when the stream made one).
        const first = pieces[0];
        if (first && gateway.finishDraft)
          first.payload = { ...(first.payload as object), draft: draftKey(active.inboxId) };
      }
      // Nothing written after the record's end: it may be the whole transaction (one statement). A
      // continued turn's checkpoint is deleted after this write (the run manager's), steered
      // records and files are written after it here.
      const last = active.unsuspended === true && active.steered.length === 0 && files.length === 0;
      // The fence (several instances) checks the lock once the record is locked by its update (in
      // the same statement where it can), and undoes all of it when the lock is gone.
      // The thread's next queued message is moved to running with this end (one statement on
      // PostgreSQL): a queued turn's own running mark was a statement each, not grouped.
      const queued = state.queue[0];
      const next = queued && !queued.running && !this.p.stopping() ? queued : undefined;
      await this.p.fenced(state, (lock, fenceAfter) =>
        this.#end(active.inboxId, status, pieces, { lock, last: last && !fenceAfter, next }),
      );
      for (const id of active.steered) await this.p.store.inbox.markDone(id, "done");
      if (gateway && files.length > 0) {
        const pieces = await filePieces(
          this.p.store,
          gateway.name,
          state.thread,
          active.inboxId,
          files,
          active.origin.meta,
        );
        await this.p.store.outbox.enqueue(traced(pieces, active.traceparent ?? active.origin.traceparent));
      }
    };
    // Called inside the transaction saving the turn's messages (memory.append's `within`), whose
    // caller lets every error end it: the writes join it, as a savepoint would protect nothing
    // (and cost two round trips on PostgreSQL). Otherwise they are a transaction of their own.
    if (this.p.store.inTransaction?.()) await write();
    else await this.p.store.transaction(write);
    active.committed = true;
    if (gateway && !text)
      this.p.loggerFor(gateway).info({ thread: state.thread }, "turn produced no text; nothing sent");
  }

  /** Stops the reply's preview, keeping what it said (a reply cut short ends with it). */
  async #closePreview(state: ThreadState, active: ActiveTurn): Promise<void> {
    const gateway = this.p.registry.get(state.gateway);
    if (gateway) await this.p.previews.close(gateway, draftKey(active.inboxId));
  }

  async #commitFallback(state: ThreadState, active: ActiveTurn, text: string): Promise<void> {
    try {
      await this.#closePreview(state, active);
      await this.#commit(state, active, "failed", text, true);
    } catch (err) {
      this.p.logger.error({ err, threadId: state.threadId }, "could not record the end of a failed turn");
    }
  }
}
