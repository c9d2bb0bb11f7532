// One due outbox piece sent by the outbox sender: its gateway looked up (the piece dead-lettered
// when the entry is gone), the send traced as a child of the turn that wrote the piece and bounded
// by sendTimeoutMs, then marked sent with the platform's message id, or handed to
// outbox-failure.ts.
import { fault } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import type { Gateway, SendResult } from "./gateway.js";
import { deliverPiece, draftOf } from "./outbox-deliver.js";
import { type FailureDeps, failedSend } from "./outbox-failure.js";
import { type OutboxOptions, withTimeout } from "./outbox-options.js";
import type { GatewayRegistry } from "./registry.js";
import type { SendOutcome, SessionObserver } from "./observer.js";
import type { OutboxRow, SessionStore } from "./store.js";
import type { Previews } from "./streaming.js";
import { inSpan, type TraceSpan } from "./trace.js";

export interface SendOneDeps {
  store: SessionStore;
  registry: GatewayRegistry;
  logger: Logger;
  observer: SessionObserver | undefined;
  drafts: Previews | undefined;
  fileUrl: OutboxOptions["fileUrl"];
  sendTimeoutMs: number;
  /** What a failed send needs (outbox-failure.ts). */
  failure: FailureDeps;
}

export async function sendOne(d: SendOneDeps, row: OutboxRow): Promise<void> {
  const gateway = d.registry.get(row.gateway);
  if (!gateway) {
    await d.store.outbox.markDead(row.id, `gateway "${row.gateway}" is not registered`);
    d.logger.error(
      { gateway: row.gateway, thread: row.thread, id: row.id },
      "outbox piece dead-lettered: its gateway is not registered (entry removed?)",
    );
    return;
  }
  const attempt = row.attempts + 1;
  const attributes = {
    "agentsvc.gateway": gateway.name,
    "agentsvc.outbox.id": row.id,
    "agentsvc.outbox.kind": row.kind,
    "agentsvc.outbox.attempt": attempt,
  };
  // A child of the turn that wrote the piece, in its trace (also after a restart).
  const parent = { traceparent: row.traceparent };
  const started = performance.now();
  d.observer?.onSending?.(gateway.name);
  let outcome: SendOutcome = "retry";
  try {
    await inSpan(`send ${gateway.name}`, { kind: "PRODUCER", attributes, parent }, async (span) => {
      outcome = await attemptSend(d, gateway, row, attempt, span);
      span.setAttribute("agentsvc.outbox.outcome", outcome);
      if (outcome !== "sent") span.fail(new Error(`send ${outcome}`));
    });
  } finally {
    d.observer?.onSent?.(gateway.name, outcome, (performance.now() - started) / 1000);
  }
}

async function attemptSend(
  d: SendOneDeps,
  gateway: Gateway,
  row: OutboxRow,
  attempt: number,
  span: TraceSpan,
): Promise<SendOutcome> {
  let result: SendResult | undefined;
  try {
    fault("before-send");
    result = await withTimeout(
      deliverPiece({ store: d.store, drafts: d.drafts, fileUrl: d.fileUrl }, gateway, row, attempt),
      d.sendTimeoutMs,
    );
    fault("mid-send");
  } catch (err) {
    return failedSend(d.failure, gateway, row, attempt, err, span);
  }
  await d.store.outbox.markSent(row.id, result?.messageId);
  const draft = draftOf(row);
  if (draft && d.drafts) await d.drafts.finished(gateway, draft);
  return "sent";
}
