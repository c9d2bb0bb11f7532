// Approval buttons on a platform that signs nothing it sends back (Mattermost's interactive message
// `context` is returned as posted, by anyone who can reach the route): the codec's payload with an
// HMAC-SHA256 over it and a scope (the channel it was posted to), checked in constant time, so a
// press counts only with a payload this agent made for that scope.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { DecisionKind } from "@agentsvc/agent-core";
import { decodeDecision, encodeDecision } from "./decision-codec.js";

function mac(secret: string, payload: string, scope: string): Buffer {
  return createHmac("sha256", secret).update(`${payload}\n${scope}`).digest();
}

/** The payload a button carries and its signature (base64url). */
export function signDecision(
  secret: string,
  requestId: string,
  decision: DecisionKind,
  scope: string,
): { payload: string; sig: string } {
  const payload = encodeDecision(requestId, decision);
  return { payload, sig: mac(secret, payload, scope).toString("base64url") };
}

/** The decision a pressed button names, when its signature is this secret's for `scope`; else undefined. */
export function verifyDecision(
  secret: string,
  payload: unknown,
  scope: unknown,
  sig: unknown,
): { requestId: string; decision: DecisionKind } | undefined {
  if (typeof payload !== "string" || typeof scope !== "string" || typeof sig !== "string") return undefined;
  const given = Buffer.from(sig, "base64url");
  const expected = mac(secret, payload, scope);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return decodeDecision(payload);
}
