// The durable half of `deliver`: one inbound message recorded (or found a duplicate) inside the
// inbound span, checked first when the entry restricts senders or does not take its attachments.
import { acceptChecked, mediaOutcome } from "./accept-checked.js";
import { restricts, type SenderGate } from "./access.js";
import type { DeliverResult, Gateway, GatewayEntryOptions, Inbound } from "./gateway.js";
import type { originOf } from "./inbound.js";
import type { Logger } from "pino";
import type { RecordAnnounce } from "./coordination.js";
import type { SessionStore } from "./store.js";
import { inSpan } from "./trace.js";

export interface RecordInboundDeps {
  store: SessionStore;
  gate: SenderGate;
  entry: GatewayEntryOptions | undefined;
  logger: Logger;
}

/** Records the message; the origin gets the span's trace context, so the turn and the reply continue its trace. */
export function recordInbound(
  deps: RecordInboundDeps,
  gateway: Gateway,
  inbound: Inbound,
  origin: ReturnType<typeof originOf>,
  operator: boolean,
  /** Sent by the recording statement to the thread's holder (dispatch.ts recordAnnounceFor). */
  announce?: RecordAnnounce,
): Promise<
  | DeliverResult
  | { accepted: true; id: number; refused: string }
  | { accepted: true; id: number; announced: true }
> {
  const attributes = { "agentsvc.gateway": gateway.name, "agentsvc.gateway.type": gateway.type };
  return inSpan(
    `gateway.inbound ${gateway.name}`,
    { kind: "CONSUMER", attributes, parent: "active" },
    async (span) => {
      const traceparent = span.traceparent;
      if (traceparent) origin.traceparent = traceparent;
      const record = {
        gateway: gateway.name,
        dedupKey: inbound.dedupKey,
        thread: inbound.thread,
        text: inbound.text,
        origin,
        ...(inbound.attachments?.length ? { attachments: inbound.attachments } : {}),
      };
      const access = deps.entry?.access;
      const media = mediaOutcome(inbound, deps.entry?.media);
      const accepted =
        (restricts(access) && !operator) || media
          ? await acceptChecked(deps, gateway, inbound, record, operator ? undefined : access, media)
          : await deps.store.inbox.accept(record, announce ? { announce } : undefined);
      span.setAttribute(
        "agentsvc.inbound.outcome",
        !accepted.accepted ? "duplicate" : "refused" in accepted ? "refused" : "accepted",
      );
      if ("refused" in accepted) span.setAttribute("agentsvc.inbound.refused", accepted.refused);
      return accepted;
    },
  );
}
