// An inbound event body -> the session's `Inbound`. The signer is the author as far as this server
// can know: the body's `userDisplay` is a label only.
import type { Inbound } from "@agentsvc/adapter-kit";
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
  if (body.meta !== undefined && deeperThan(body.meta, MAX_META_DEPTH))
    return `body.meta: nested deeper than ${MAX_META_DEPTH} levels`;
  return undefined;
}

/**
 * Levels of objects and arrays `meta` may nest (itself the first). JSON.parse takes any depth, but
 * recording a very deep value overflows the stack, which answered 500 "retry it" to a request that
 * can never succeed; it is a 400 instead.
 */
const MAX_META_DEPTH = 32;

/** Without recursion: the value being checked may be deep enough to overflow the stack. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
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
