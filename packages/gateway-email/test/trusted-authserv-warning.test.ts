// The start's warning when no receiving server is trusted (trustedAuthservIds unset or empty): no
// reply applies a decision then, and the operator reads why in the log.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { DMARC_PASS } from "./harness.js";
import { fromAnn, request, useSteppedGateway } from "./stepped-gateway.js";

const { started } = useSteppedGateway();

const warned = (lines: { level: number; msg: string }[]) =>
  lines.filter((l) => l.level === 40 && l.msg.startsWith("trustedAuthservIds is not set"));

describe.skipIf(dovecotMissing !== undefined)("the trustedAuthservIds warning", () => {
  it("an entry without trustedAuthservIds starts with a warning, and a reply to an approval mail then does not decide", async () => {
    const { box, lines, delivered, interactions, round } = await started({ trustedAuthservIds: undefined });
    expect(warned(lines).map((l) => l.msg)).toEqual([
      "trustedAuthservIds is not set: replies to approval mails are not applied as decisions (set it to the authserv-id your receiving mail server writes in Authentication-Results)",
    ]);
    // Even with the receiving server's DMARC pass: no server is trusted to have written it.
    interactions.set("req_t", request("req_t", "<t0@example.test>"));
    const reply = await box.append(
      fromAnn("t1", "Re: May I? [agentsvc:req_t]", "approve", { headers: DMARC_PASS }),
    );
    await round();
    expect(delivered).toEqual([]);
    expect(await box.seen(reply)).toBe(false);
  });

  it("an entry that trusts a receiving server starts without it", async () => {
    const { lines } = await started();
    expect(warned(lines)).toEqual([]);
  });
});
