// A reply to an approval mail: its first line decides when it is a decision, exactly or by
// prefix, case-insensitively; anything else reaches the agent verbatim. The session matches the
// whole inbound text, so the gateway hands it only the decision in that case.
import { type InteractionView, matchDecisionText } from "@agentsvc/session-core";

type DecisionKind = InteractionView["allowedDecisions"][number];

// By prefix only the spelled-out decisions count: "No idea ..." or "A question" is a message.
const APPROVE = ["approve", "approved"];
const REJECT = ["reject", "rejected"];

/**
 * The text to deliver for a reply to an open request: the decision (`approve`, `reject: reason`)
 * when the first line is one, else `text` unchanged. "Approve, go ahead" and "Reject - too risky"
 * match by prefix; "No idea" does not (short words count only as the whole line: "yes", "no", "a").
 */
export function decisionText(text: string, allowed: readonly DecisionKind[]): string {
  const firstLine =
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "";
  if (matchDecisionText(firstLine, [...allowed])) return firstLine;
  const match = /^([a-z]+)\b[\s.,;:!\-–—]*(.*)$/i.exec(firstLine);
  if (!match) return text;
  const word = (match[1] ?? "").toLowerCase();
  const rest = (match[2] ?? "").trim();
  if (APPROVE.includes(word) && allowed.includes("approve")) return "approve";
  if (REJECT.includes(word) && allowed.includes("reject")) return rest ? `reject: ${rest}` : "reject";
  return text;
}
