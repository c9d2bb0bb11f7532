// Approvals as an Adaptive Card (1.4, Universal Actions): the request as text and one
// Action.Execute per pressable decision, whose click reaches the bot as an `adaptiveCard/action`
// invoke carrying session-core's decision payload. After the decision the card is replaced by one
// without actions that says what was decided.
import type { DecisionKind } from "@agentsvc/adapter-kit";
import { decisionLabel, decodeDecision, encodeDecision, pressableDecisions } from "@agentsvc/adapter-kit";

export const CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive";
export const DECIDE_VERB = "agentsvc.decide";

export function approvalCard(
  requestId: string,
  prompt: string,
  allowed: DecisionKind[],
): Record<string, unknown> {
  return cardActivity({
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: [{ type: "TextBlock", text: prompt, wrap: true }],
    actions: pressableDecisions(allowed).map((decision) => ({
      type: "Action.Execute",
      title: decisionLabel(decision),
      verb: DECIDE_VERB,
      data: { decision: encodeDecision(requestId, decision) },
    })),
  });
}

export function decidedCard(prompt: string, decision: DecisionKind, by: string): Record<string, unknown> {
  return cardActivity({
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: [
      { type: "TextBlock", text: prompt, wrap: true, isSubtle: true },
      { type: "TextBlock", text: `${decisionLabel(decision)} (${by})`, wrap: true, weight: "Bolder" },
    ],
  });
}

function cardActivity(content: Record<string, unknown>): Record<string, unknown> {
  return { type: "message", attachments: [{ contentType: CARD_CONTENT_TYPE, content }] };
}

const LEGACY_DECISIONS = new Set<string>(["approve", "reject"]);

/**
 * The decision a card click carries: Action.Execute (`value.action.data`) or Action.Submit (`value`).
 * Cards sent before the shared codec carried `{ requestId, decision }`; they still decide.
 */
export function clickedDecision(value: unknown): { requestId: string; decision: DecisionKind } | undefined {
  const v = value as { action?: { verb?: unknown; data?: unknown } } & Record<string, unknown>;
  if (v?.action && v.action.verb !== DECIDE_VERB) return undefined;
  const data = (v?.action?.data ?? v) as Record<string, unknown> | undefined;
  if (typeof data?.decision !== "string") return undefined;
  const decoded = decodeDecision(data.decision);
  if (decoded) return decoded;
  return typeof data.requestId === "string" && LEGACY_DECISIONS.has(data.decision)
    ? { requestId: data.requestId, decision: data.decision as DecisionKind }
    : undefined;
}
