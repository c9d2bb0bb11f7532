// The agent route's own thread namespace. One RunManager keys every run by one global threadId:
// gateway runs as `gw:<gateway>:<thread>`, the chat page's as `u.<digest>/<id>`. A caller of the
// open agent route names its threads freely, so each of its ids is run as `a.<digest of
// userId>/<id>`: a client id holds no `/` (see `optionalThreadId`), so no agent-route caller can
// name a gateway's or the chat page's thread, nor another user's. Answers carry the client's id back.
import { createHash } from "node:crypto";
import { AgentsvcError } from "@agentsvc/agent-core";

/**
 * Scopes made so far: every request of the route asks for its user's, and a SHA-256 per request
 * was ~1.4% of an `/agent/invoke` instance's CPU (most callers are one user, or a few API keys').
 * Emptied when it reaches SCOPES_KEPT users, so a stream of new users cannot grow it.
 */
const scopes = new Map<string, string>();
const SCOPES_KEPT = 1000;

/** The namespace prefix of `userId`'s agent-route threads (fixed length, so prefixes never overlap). */
export function agentThreadScope(userId: string): string {
  const known = scopes.get(userId);
  if (known !== undefined) return known;
  const scope = `a.${createHash("sha256").update(userId).digest("base64url").slice(0, 22)}/`;
  if (scopes.size >= SCOPES_KEPT) scopes.clear();
  scopes.set(userId, scope);
  return scope;
}

/** Runs `work`, removing `prefix` from the message of an AgentsvcError it throws (ids in 409 texts). */
export async function withoutPrefix<T>(prefix: string, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (prefix && error instanceof AgentsvcError) error.message = error.message.split(prefix).join("");
    throw error;
  }
}
