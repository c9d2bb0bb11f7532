// Approvals as an Adaptive Card (1.4, Universal Actions): the request as text and one
// Action.Execute per decision, whose click reaches the bot as an `adaptiveCard/action` invoke.
// After the decision the card is replaced by one without actions that says what was decided.

export const CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive";
export const DECIDE_VERB = "agentsvc.decide";

const label = (d: string) => d.charAt(0).toUpperCase() + d.slice(1);

export function approvalCard(
  requestId: string,
  prompt: string,
  decisions: string[],
): Record<string, unknown> {
  return cardActivity({
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: [{ type: "TextBlock", text: prompt, wrap: true }],
    actions: decisions.map((decision) => ({
      type: "Action.Execute",
      title: label(decision),
      verb: DECIDE_VERB,
      data: { requestId, decision },
    })),
  });
}

export function decidedCard(prompt: string, decision: string, by: string): Record<string, unknown> {
  return cardActivity({
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: "1.4",
    body: [
      { type: "TextBlock", text: prompt, wrap: true, isSubtle: true },
      { type: "TextBlock", text: `${label(decision)} (${by})`, wrap: true, weight: "Bolder" },
    ],
  });
}

function cardActivity(content: Record<string, unknown>): Record<string, unknown> {
  return { type: "message", attachments: [{ contentType: CARD_CONTENT_TYPE, content }] };
}

/** The decision a card click carries: Action.Execute (`value.action.data`) or Action.Submit (`value`). */
export function clickedDecision(value: unknown): { requestId: string; decision: string } | undefined {
  const v = value as { action?: { verb?: unknown; data?: unknown } } & Record<string, unknown>;
  const data = (v?.action?.data ?? v) as Record<string, unknown> | undefined;
  if (v?.action && v.action.verb !== DECIDE_VERB) return undefined;
  return typeof data?.requestId === "string" && typeof data.decision === "string"
    ? { requestId: data.requestId, decision: data.decision }
    : undefined;
}
