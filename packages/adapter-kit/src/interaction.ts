// Interaction requests in words, and matching a plain reply against the allowed decisions.
import type { DecisionKind } from "@agentsvc/agent-core";
import type { DecisionInput } from "./gateway.js";

const ARGS_LIMIT = 500;

/**
 * "The agent wants to run <tool> with <args>". On a text-only platform (`buttons` false) it goes on
 * with the replies that decide it; a platform with buttons shows the buttons instead. An edit needs
 * replacement arguments no typed reply carries, so it is never offered as text.
 */
export function describeRequest(
  toolName: string,
  args: unknown,
  allowed: DecisionKind[],
  options: { buttons?: boolean } = {},
): string {
  let shown: string;
  try {
    shown = JSON.stringify(args, null, 2) ?? "(no arguments)";
  } catch {
    shown = String(args);
  }
  if (shown.length > ARGS_LIMIT) shown = `${shown.slice(0, ARGS_LIMIT)}…`;
  const request = `Approval needed: the agent wants to run the tool "${toolName}" with these arguments:\n${shown}`;
  const typed = allowed.flatMap((d) => (d === "edit" ? [] : [TYPED_REPLIES[d]]));
  if (options.buttons || typed.length === 0) return request;
  return `${request}\n\nReply with one of:\n${typed.join("\n")}`;
}

const TYPED_REPLIES: Record<Exclude<DecisionKind, "edit">, string> = {
  approve: "- approve (or: yes, a)",
  reject: "- reject (or: no, r); add a reason after a colon: reject: not now",
};

const APPROVE_WORDS = new Set(["approve", "approved", "yes", "y", "a", "ok"]);
const REJECT_WORDS = new Set(["reject", "rejected", "no", "n", "r"]);

/**
 * Matches a plain message against the allowed decisions, case-insensitively. The whole message
 * (ignoring surrounding whitespace and trailing `.`/`!`) must be one word of
 * approve/approved/yes/y/a/ok or reject/rejected/no/n/r; a rejection may carry a reason after a
 * colon (`reject: too expensive`). Anything else returns undefined and is treated as a message.
 */
export function matchDecisionText(text: string, allowed: DecisionKind[]): DecisionInput | undefined {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  const head = (colon >= 0 ? trimmed.slice(0, colon) : trimmed)
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, "");
  const reason = colon >= 0 ? trimmed.slice(colon + 1).trim() : "";
  if (APPROVE_WORDS.has(head) && colon < 0 && allowed.includes("approve")) return { decision: "approve" };
  if (REJECT_WORDS.has(head) && allowed.includes("reject")) {
    return reason ? { decision: "reject", reason } : { decision: "reject" };
  }
  return undefined;
}
