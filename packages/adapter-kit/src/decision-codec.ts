// The one approval payload codec: what a button carries (Telegram callback_data, Discord custom_id,
// Slack action value, WhatsApp reply id) and the rules every platform shares: which decisions get a
// button and what the button says. `agentsvc:<a|r|e>:<requestId>`: request ids are
// `req_<22 base64url>` (26 characters) and a UUID is 36, so a payload stays far below Telegram's
// 64 bytes, the tightest limit (Discord 100, WhatsApp 256, Slack 2000).
import type { DecisionKind } from "@agentsvc/agent-core";

const PREFIX = "agentsvc";
const CODE_OF: Record<DecisionKind, string> = { approve: "a", reject: "r", edit: "e" };
const DECISION_OF: Readonly<Record<string, DecisionKind>> = { a: "approve", r: "reject", e: "edit" };
const LABELS: Record<DecisionKind, string> = { approve: "Approve", reject: "Reject", edit: "Edit" };
/** What a request id may hold: no separators or whitespace, bounded so every platform takes it. */
const REQUEST_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const PAYLOAD = /^agentsvc:([are]):([A-Za-z0-9_.-]{1,128})$/;

/** The button payload for one decision of one request. Throws for a request id the codec cannot carry. */
export function encodeDecision(requestId: string, decision: DecisionKind): string {
  if (!REQUEST_ID.test(requestId))
    throw new RangeError(`not an encodable request id: ${JSON.stringify(requestId)}`);
  const code = CODE_OF[decision];
  if (!code) throw new RangeError(`not a decision: ${JSON.stringify(decision)}`);
  return `${PREFIX}:${code}:${requestId}`;
}

/** The request and decision a payload names; undefined for anything this codec did not make. */
export function decodeDecision(payload: string): { requestId: string; decision: DecisionKind } | undefined {
  const m = typeof payload === "string" ? PAYLOAD.exec(payload) : null;
  const decision = m ? DECISION_OF[m[1] as string] : undefined;
  return m && decision ? { requestId: m[2] as string, decision } : undefined;
}

/** The decisions that get a button, in the given order: `edit` needs the edited data typed, so it gets none. */
export function pressableDecisions(allowed: readonly DecisionKind[]): DecisionKind[] {
  return allowed.filter((d, i) => d !== "edit" && d in CODE_OF && allowed.indexOf(d) === i);
}

/** The button text of a decision: "Approve", "Reject", "Edit". */
export function decisionLabel(decision: DecisionKind): string {
  return LABELS[decision];
}
