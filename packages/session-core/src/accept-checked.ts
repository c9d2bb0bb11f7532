// Recording an inbound message whose sender or attachments must be checked first: the record, the
// verdict and its answer in one transaction, so a refused message is never left queued for
// recovery to run.
import type { Logger } from "pino";
import { refusalPieces, restricts, type SenderAccessOptions, type SenderGate } from "./access.js";
import type { DeliverResult, Gateway, GatewayEntryOptions, Inbound } from "./gateway.js";
import { type MediaOptions, nothingToRun, unsupportedNote } from "./media-notes.js";
import { textPieces } from "./replies.js";
import type { SessionStore } from "./store.js";
import { traced } from "./trace.js";

export type AcceptRecord = Parameters<SessionStore["inbox"]["accept"]>[0];

/** The answer and the skip for a message's attachments the entry does not take in. */
export interface MediaOutcome {
  note?: string;
  skip: boolean;
}

/** The answer and the skip for a message with attachments; undefined when it has none to answer for. */
export function mediaOutcome(inbound: Inbound, media: MediaOptions | undefined): MediaOutcome | undefined {
  if (!inbound.attachments?.length) return undefined;
  const note = unsupportedNote(inbound.attachments, media);
  const skip = nothingToRun(inbound.text, inbound.attachments);
  if (!note && !skip) return undefined;
  return { ...(note ? { note } : {}), skip };
}

export interface AcceptCheckedDeps {
  store: SessionStore;
  gate: SenderGate;
  entry: GatewayEntryOptions | undefined;
  logger: Logger;
}

/**
 * Records the message and checks its sender in one transaction: a refused one is rejected with
 * its answer (if any) together, never left queued for recovery to run.
 */
export async function acceptChecked(
  deps: AcceptCheckedDeps,
  gateway: Gateway,
  inbound: Inbound,
  record: AcceptRecord,
  access: SenderAccessOptions | undefined,
  media?: MediaOutcome,
): Promise<DeliverResult | { accepted: true; id: number; refused: string }> {
  const { store } = deps;
  const outcome = await store.transaction(async () => {
    const accepted = await store.inbox.accept(record);
    if (!accepted.accepted) return accepted;
    const verdict = restricts(access)
      ? await deps.gate.check(gateway.name, inbound, access as SenderAccessOptions, Date.now(), deps.entry)
      : { admitted: true as const };
    if (verdict.admitted) {
      if (!media) return accepted;
      // Attachments the entry does not take in: one short answer with the record, and no turn
      // when nothing else is left (an uncaptioned photo on a text-only entry).
      if (media.note) {
        const idem = `${gateway.name}:in${accepted.id}:media`;
        const pieces = textPieces(gateway, inbound.thread, media.note, idem, record.origin.meta);
        await store.outbox.enqueue(traced(pieces, record.origin.traceparent));
      }
      if (!media.skip) return accepted;
      await store.inbox.markDone(accepted.id, "done");
      return { ...accepted, refused: "media", answered: media.note !== undefined };
    }
    await store.inbox.markDone(accepted.id, "rejected");
    if (verdict.reply) {
      const pieces = refusalPieces(gateway, accepted.id, inbound.thread, verdict.reply, record.origin);
      await store.outbox.enqueue(traced(pieces, record.origin.traceparent));
    }
    return { ...accepted, refused: verdict.reason, answered: verdict.reply !== undefined };
  });
  if ("refused" in outcome && outcome.refused !== "media") {
    deps.logger.info(
      {
        sender: inbound.author.id,
        reason: outcome.refused,
        answered: outcome.answered,
        inboxId: outcome.id,
      },
      "inbound message refused by sender access",
    );
  }
  return outcome;
}
