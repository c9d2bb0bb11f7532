// A mail without a sender (no From header, as some scripts and spam send it) against the gateway
// stepped by hand: it is ignored with its reason logged, left unread, and the poll goes on to the
// next mail instead of failing on it.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { fromAnn, useSteppedGateway } from "./stepped-gateway.js";

const { started } = useSteppedGateway();

describe.skipIf(dovecotMissing !== undefined)("a mail without a sender", () => {
  it("is logged as ignored and left unread, and the mail after it is delivered in the same poll", async () => {
    const { box, delivered, lines, round } = await started();
    const senderless = await box.observer.append(
      "INBOX",
      "To: bot@example.test\r\nSubject: no sender\r\nMessage-ID: <ns@example.test>\r\n\r\nhello\r\n",
      [],
    );
    const after = await box.append(fromAnn("after", "Next", "next mail"));
    expect(await round()).toBe(100);
    expect(delivered.map((d) => d.text)).toEqual(["next mail"]);
    expect(await box.seen((senderless || undefined)?.uid ?? 0)).toBe(false);
    expect(await box.seen(after)).toBe(true);
    expect(lines.filter((l) => l.msg === "mail ignored").map((l) => [l.reason, l.from])).toEqual([
      ["no sender address", undefined],
    ]);
    expect(lines.filter((l) => String(l.msg).startsWith("IMAP poll failed"))).toEqual([]);
  });
});
