// Approvals as WhatsApp interactive messages: the decisions (at most three kinds) as reply buttons
// (titles cut to 20 characters); the body text is cut to the 1024 the platform allows.
// Each option id is the session's decision payload (`encodeDecision`), so a press needs no lookup.
import type { DecisionKind } from "@agentsvc/adapter-kit";
import { decodeDecision, encodeDecision } from "@agentsvc/adapter-kit";

export const BODY_LIMIT = 1024;
export const BUTTON_TITLE_LIMIT = 20;
const DECISIONS: readonly string[] = ["approve", "reject", "edit"];

export interface DecisionOption {
  decision: DecisionKind;
  label: string;
}

export function cut(text: string, limit: number): string {
  const chars = [...text];
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}

/**
 * The request and decision an option id names, or undefined for ids this gateway did not make.
 * Buttons sent before the shared codec (`agentsvc:<requestId>:<decision>`) still decide, for one
 * release.
 */
export function decisionOf(id: string): { requestId: string; decision: DecisionKind } | undefined {
  const decoded = decodeDecision(id);
  if (decoded) return decoded;
  const legacy = /^agentsvc:(.+):([a-z]+)$/.exec(id);
  return legacy && DECISIONS.includes(legacy[2] as string)
    ? { requestId: legacy[1] as string, decision: legacy[2] as DecisionKind }
    : undefined;
}

/** The `interactive` object of a messages call for one approval request. */
export function approvalInteractive(
  requestId: string,
  prompt: string,
  options: DecisionOption[],
): Record<string, unknown> {
  return {
    type: "button",
    body: { text: cut(prompt, BODY_LIMIT) },
    action: {
      buttons: options.map((o) => ({
        type: "reply",
        reply: { id: encodeDecision(requestId, o.decision), title: cut(o.label, BUTTON_TITLE_LIMIT) },
      })),
    },
  };
}
