// One outbox piece handed to its gateway by kind: text (finishing a streamed draft where there is
// one), a file (uploaded, or a note with its link where the platform takes none), an approval
// request, a decided notice (naming the message that showed its request).
import { fileNote, GatewaySendError, type OutboundFilePayload } from "@agentsvc/adapter-kit";
import type { DecidedNotice, DraftIds, Gateway, InteractionRequest, SendResult } from "./gateway.js";
import type { OutboxOptions } from "./outbox-options.js";
import type { OutboxRow, SessionStore } from "./store.js";
import type { Previews } from "./streaming.js";

export interface DeliverDeps {
  store: SessionStore;
  drafts: Previews | undefined;
  fileUrl: OutboxOptions["fileUrl"];
}

export async function deliverPiece(
  d: DeliverDeps,
  gateway: Gateway,
  row: OutboxRow,
  attempt: number,
): Promise<SendResult | undefined> {
  const payload = row.payload as Record<string, unknown>;
  const meta = payload.meta as Record<string, unknown> | undefined;
  const requestId = typeof payload.requestId === "string" ? payload.requestId : undefined;
  const options = {
    idempotencyKey: row.idemKey,
    attempt,
    ...(meta ? { meta } : {}),
    ...(requestId ? { requestId } : {}),
  };
  switch (row.kind) {
    case "text": {
      const text = String(payload.text ?? "");
      const draft = draftOf(row);
      // A piece finalised before an approval carries its draft; the reply's first piece looks it up.
      const carried = (payload.draftIds ?? undefined) as DraftIds | undefined;
      const ids =
        carried ?? (draft && gateway.finishDraft ? await d.drafts?.take(gateway, draft) : undefined);
      if (ids && gateway.finishDraft) return gateway.finishDraft(row.thread, ids, text, options);
      return gateway.send(row.thread, text, options);
    }
    case "file": {
      const file = payload as unknown as OutboundFilePayload;
      const url = d.fileUrl?.(file);
      const blobs = d.store.blobs;
      // A platform without uploads (or a store without blobs) still hears about the file.
      if (!gateway.sendFile || !blobs) return gateway.send(row.thread, fileNote(file, url), options);
      const bytes = async () => {
        const data = await blobs.read(file.blob);
        if (!data) throw new GatewaySendError(`file ${file.name} is no longer stored`, { permanent: true });
        return data;
      };
      return gateway.sendFile(row.thread, { ...file, bytes, ...(url ? { url } : {}) }, options);
    }
    case "approval":
      if (!gateway.requestDecision)
        throw new GatewaySendError("gateway has no requestDecision", { permanent: true });
      return gateway.requestDecision(payload as unknown as InteractionRequest, options);
    case "decided": {
      if (!gateway.onDecided) return undefined;
      const notice = payload as unknown as DecidedNotice;
      const rendered = (await d.store.outbox.list(row.gateway, row.thread)).find(
        (r) => r.idemKey === `${notice.requestId}:render`,
      );
      const requestMessageId = rendered?.platformId;
      await gateway.onDecided(requestMessageId ? { ...notice, requestMessageId } : notice, options);
      return undefined;
    }
  }
}

/** The draft key a streamed reply's first piece carries (see streaming.ts). */
export function draftOf(row: OutboxRow): string | undefined {
  if (row.kind !== "text") return undefined;
  // An object: deliverPiece has read its fields before this is asked.
  const draft = (row.payload as { draft?: unknown }).draft;
  return typeof draft === "string" ? draft : undefined;
}
