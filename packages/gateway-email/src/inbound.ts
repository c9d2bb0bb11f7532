// What an inbound mail means: whether to ignore it (auto-replies, bounces, lists, our own
// mail), its threading ids, the text the agent sees (the quoted previous mail removed), and the
// decision a reply to an approval mail makes. A reply to an approval mail: its first line
// decides when it is a decision, exactly or by prefix, case-insensitively; anything else reaches
// the agent verbatim. The session matches the whole inbound text, so the gateway hands it only
// the decision in that case.
import { type InteractionView, matchDecisionText } from "@agentsvc/adapter-kit";
import type { ParsedMail } from "mailparser";

export interface MailFacts {
  messageId: string | undefined;
  inReplyTo: string | undefined;
  /** Oldest first, as the References header lists them. */
  references: string[];
  subject: string;
  from: string;
  fromName: string | undefined;
  /**
   * Where replies go: the `Reply-To` addresses when the mail names any ("the address(es) to which
   * the author of the message suggests that replies be sent", RFC 5322 §3.6.2), else `from`.
   * Mailing lists and ticket systems set it. Who wrote the mail is still `from`.
   */
  replyTo: string;
  /** Text without the quoted previous mail and the signature. */
  text: string;
}

const AUTO_SENDERS = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)@/i;

/** Why this mail must not reach the agent (two bots must never answer each other), or undefined. */
export function ignoreReason(mail: ParsedMail, ownAddress: string): string | undefined {
  const header = (name: string) => {
    const value = mail.headers.get(name);
    return typeof value === "string" ? value.trim().toLowerCase() : undefined;
  };
  const from = mail.from?.value[0]?.address?.toLowerCase() ?? "";
  if (!from) return "no sender address";
  if (from === ownAddress.toLowerCase()) return "sent by this gateway's own address";
  // mailparser gives structured headers as { value, params }.
  const type = mail.headers.get("content-type") as
    | { value?: string; params?: Record<string, string> }
    | undefined;
  if (type?.value?.toLowerCase() === "multipart/report") {
    // Stryker disable next-line OptionalChaining: mailparser's structured header always carries params (an object)
    const report = (type.params?.["report-type"] ?? "").toLowerCase();
    // RFC 3464 (bounces) and RFC 8098 (read receipts, often sent without Auto-Submitted).
    if (report === "delivery-status") return "delivery status notification (bounce)";
    if (report === "disposition-notification") return "read receipt (disposition notification)";
    return `report (${report || "no report-type"})`;
  }
  const auto = header("auto-submitted");
  if (auto && auto !== "no") return `Auto-Submitted: ${auto}`;
  // RFC 2919: mail a list distributed; the bot answers people, not lists.
  // mailparser folds the List-* headers into one `list` header: { id: { id, name }, post, ... }.
  const list = mail.headers.get("list") as { id?: { id?: string } } | undefined;
  if (list?.id) return `mailing list (List-Id ${list.id.id ?? ""})`;
  const precedence = header("precedence");
  if (precedence && ["bulk", "junk", "list", "auto_reply"].includes(precedence))
    return `Precedence: ${precedence}`;
  if (mail.headers.has("x-autoreply") || mail.headers.has("x-autorespond")) return "auto-responder header";
  if (AUTO_SENDERS.test(from)) return `sent by ${from}`;
  return undefined;
}

export function mailFacts(mail: ParsedMail): MailFacts {
  // mailparser splits References into ids (every References header, a string when there is one id).
  const references = Array.isArray(mail.references)
    ? mail.references
    : mail.references
      ? [mail.references]
      : [];
  const sender = mail.from?.value[0];
  return {
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo?.split(/\s+/)[0],
    references,
    subject: mail.subject ?? "",
    from: (sender?.address ?? "").toLowerCase(),
    fromName: sender?.name || undefined,
    replyTo: replyAddresses(mail) ?? (sender?.address ?? "").toLowerCase(),
    text: stripQuoted(mail.text ?? ""),
  };
}

/** The Reply-To addresses, comma-separated (groups flattened), or undefined when it names none. */
function replyAddresses(mail: ParsedMail): string | undefined {
  const flat = (mail.replyTo?.value ?? []).flatMap((a) => (a.group ? a.group : [a]));
  const addresses = flat.flatMap((a) => (a.address ? [a.address.toLowerCase()] : []));
  return addresses.length > 0 ? [...new Set(addresses)].join(", ") : undefined;
}

// Where a top-posting client (Outlook and others) starts the unprefixed copy of the previous mail:
// everything from there on is the quote.
const ORIGINAL_STARTS = [
  /^-{2,}\s*Original Message\s*-{2,}\s*$/im,
  /^_{10,}\s*$/m,
  /^(From|Von|De): .+\n(Sent|Date|Gesendet|Envoyé): .+$/im,
];

// The attribution line(s) above a `>` quote.
const ATTRIBUTION = [
  /^On .{1,300}wrote:\s*$/i,
  /^Am .{1,300}schrieb.{0,100}:\s*$/i,
  /^Le .{1,300}a écrit\s*:\s*$/i,
];

const isQuoted = (line: string) => /^\s*>/.test(line);

/**
 * The new text of a reply, wherever it is: above the quote (top-posted), below it (bottom-posted)
 * or between quoted lines. Removed: an unprefixed original (Outlook), `>` lines with their
 * attribution line, and the `-- ` signature.
 */
export function stripQuoted(text: string): string {
  let body = text.replace(/\r\n/g, "\n");
  for (const pattern of ORIGINAL_STARTS) {
    const at = body.search(pattern);
    if (at >= 0) body = body.slice(0, at);
  }
  const lines = body.split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isQuoted(line)) continue;
    // "On ..., X wrote:" (one line, or wrapped over two) belongs to the quote that follows it.
    const oneLine = ATTRIBUTION.some((p) => p.test(line));
    // Stryker disable next-line OptionalChaining: ATTRIBUTION is a constant with a first pattern
    const twoLines = !oneLine && ATTRIBUTION[0]?.test(`${line} ${lines[i + 1] ?? ""}`);
    if (oneLine || twoLines) {
      const next = lines.slice(i + (twoLines ? 2 : 1)).find((l) => l.trim() !== "");
      if (next === undefined || isQuoted(next)) {
        if (twoLines) i += 1;
        continue;
      }
      // An attribution without `>` lines after it: a client that quotes unprefixed; the rest is the quote.
      break;
    }
    kept.push(line);
  }
  const joined = kept.join("\n");
  const signature = joined.search(/^-- $/m);
  const stripped = (signature >= 0 ? joined.slice(0, signature) : joined).replace(/\n{3,}/g, "\n\n").trim();
  // A mail that is only a quote (an odd client) keeps its full text rather than nothing.
  return stripped || text.trim();
}

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
  const first = text.split("\n").find((line) => line.trim() !== "");
  // Stryker disable next-line StringLiteral: any text without a decision word gives the same answer as none (the text)
  const firstLine = first?.trim() ?? "";
  if (matchDecisionText(firstLine, [...allowed])) return firstLine;
  const match = /^([a-z]+)\b[\s.,;:!\-–—]*(.*)$/i.exec(firstLine);
  if (!match) return text;
  // Stryker disable next-line StringLiteral: both groups take part in every match
  const word = (match[1] ?? "").toLowerCase();
  // Stryker disable next-line StringLiteral,MethodExpression: both groups take part in every match; the separators took the leading white space and the line was trimmed
  const rest = (match[2] ?? "").trim();
  if (APPROVE.includes(word) && allowed.includes("approve")) return "approve";
  if (REJECT.includes(word) && allowed.includes("reject")) return rest ? `reject: ${rest}` : "reject";
  return text;
}
