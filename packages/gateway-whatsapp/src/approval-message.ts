// Approvals as WhatsApp interactive messages: up to 3 decisions as reply buttons (titles cut to
// 20 characters), 4 or more as a list; the body text is cut to the 1024 the platform allows.
// Each option id carries the request id and the decision, so a press needs no lookup.

export const BODY_LIMIT = 1024;
export const BUTTON_TITLE_LIMIT = 20;
export const ROW_TITLE_LIMIT = 24;
const MAX_BUTTONS = 3;
const ID_PREFIX = "agentsvc:";

export interface DecisionOption {
  decision: string;
  label: string;
}

export function cut(text: string, limit: number): string {
  const chars = [...text];
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}

export function optionId(requestId: string, decision: string): string {
  return `${ID_PREFIX}${requestId}:${decision}`;
}

/** The request and decision an option id names, or undefined for ids this gateway did not make. */
export function parseOptionId(id: string): { requestId: string; decision: string } | undefined {
  if (!id.startsWith(ID_PREFIX)) return undefined;
  const rest = id.slice(ID_PREFIX.length);
  const at = rest.lastIndexOf(":");
  if (at <= 0) return undefined;
  return { requestId: rest.slice(0, at), decision: rest.slice(at + 1) };
}

export function labelOf(decision: string): string {
  return decision.charAt(0).toUpperCase() + decision.slice(1);
}

/** The `interactive` object of a messages call for one approval request. */
export function approvalInteractive(
  requestId: string,
  prompt: string,
  options: DecisionOption[],
): Record<string, unknown> {
  const body = { text: cut(prompt, BODY_LIMIT) };
  if (options.length <= MAX_BUTTONS) {
    return {
      type: "button",
      body,
      action: {
        buttons: options.map((o) => ({
          type: "reply",
          reply: { id: optionId(requestId, o.decision), title: cut(o.label, BUTTON_TITLE_LIMIT) },
        })),
      },
    };
  }
  return {
    type: "list",
    body,
    action: {
      button: "Choose",
      sections: [
        {
          title: "Decision",
          rows: options.map((o) => ({
            id: optionId(requestId, o.decision),
            title: cut(o.label, ROW_TITLE_LIMIT),
          })),
        },
      ],
    },
  };
}
