// An inbound event body -> the session's `Inbound`. The signer is the author as far as this server
// can know: the body's `userDisplay` is a label only.
import type { Inbound } from "@agentsvc/session-core";
import { idProblem } from "./thread.js";

export interface HttpEvent {
  id: string;
  thread: string;
  text: string;
  userDisplay?: string;
  meta?: Record<string, unknown>;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Why `body` is not an event, or undefined when it is one. */
export function eventProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "body: expected a JSON object";
  const bad = idProblem("body.id", body.id) ?? idProblem("body.thread", body.thread);
  if (bad) return bad;
  if (typeof body.text !== "string") return `body.text: expected a string (got ${typeof body.text})`;
  if (body.userDisplay !== undefined && typeof body.userDisplay !== "string")
    return "body.userDisplay: expected a string";
  if (body.meta !== undefined && !isObject(body.meta)) return "body.meta: expected an object";
  return undefined;
}

/** The event as the session records it; the author is the gateway that signed it. */
export function toInbound(event: HttpEvent, gatewayName: string): Inbound {
  return {
    dedupKey: event.id,
    thread: event.thread,
    text: event.text,
    author: {
      id: `http:${gatewayName}`,
      ...(event.userDisplay !== undefined ? { displayName: event.userDisplay } : {}),
    },
    ...(event.meta !== undefined ? { meta: event.meta } : {}),
  };
}
