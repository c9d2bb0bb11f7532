// Outbox rows as an http client reads them (the pull route and the callback body): replies and
// approval requests, with the row's durable `seq`.
import type { InteractionRequest, OutboxEntry } from "@agentsvc/adapter-kit";

export type OutboxMessage =
  | {
      seq: number;
      at: number;
      thread: string;
      kind: "reply";
      text: string;
      idempotencyKey: string;
      meta?: Record<string, unknown>;
    }
  | {
      seq: number;
      at: number;
      thread: string;
      kind: "interaction";
      requestId: string;
      text: string;
      toolName: string;
      arguments: unknown;
      allowedDecisions: string[];
      idempotencyKey: string;
    };

export function interactionMessage(request: InteractionRequest, idempotencyKey: string) {
  return {
    kind: "interaction" as const,
    thread: request.thread,
    requestId: request.requestId,
    text: request.prompt,
    toolName: request.toolName,
    arguments: request.arguments,
    allowedDecisions: request.allowedDecisions,
    idempotencyKey,
  };
}

export function toMessage(row: OutboxEntry): OutboxMessage[] {
  const base = { seq: row.seq, at: row.at };
  if (row.kind === "text") {
    const p = row.payload as { text: string; meta?: Record<string, unknown> };
    return [
      {
        ...base,
        thread: row.thread,
        kind: "reply",
        text: p.text,
        idempotencyKey: row.idempotencyKey,
        ...(p.meta ? { meta: p.meta } : {}),
      },
    ];
  }
  if (row.kind === "approval")
    return [{ ...base, ...interactionMessage(row.payload as InteractionRequest, row.idempotencyKey) }];
  return [];
}
