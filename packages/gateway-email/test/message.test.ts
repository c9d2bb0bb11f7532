import { describe, expect, it } from "vitest";
import { decisionText, replySubject, requestTag, stripQuoted } from "../src/index.js";

describe("reading a reply", () => {
  it("the first line decides exactly or by prefix, case-insensitively; anything else passes verbatim", () => {
    const both = ["approve", "reject"] as const;
    expect(decisionText("YES\n\nthanks", [...both])).toBe("YES");
    expect(decisionText("Approve, go ahead.\nmore", [...both])).toBe("approve");
    expect(decisionText("Rejected - too risky today", [...both])).toBe("reject: too risky today");
    expect(decisionText("reject: not now", [...both])).toBe("reject: not now");
    expect(decisionText("No idea what this is", [...both])).toBe("No idea what this is");
    expect(decisionText("A question first:\nwhat file?", [...both])).toBe("A question first:\nwhat file?");
    expect(decisionText("approve", ["reject"])).toBe("approve");
  });

  it("strips the quoted previous mail and the signature", () => {
    expect(stripQuoted("ok, do it\n\nOn Mon, 1 Jan 2024 at 10:00, Bot <b@x> wrote:\n> old text")).toBe(
      "ok, do it",
    );
    expect(stripQuoted("fine\n-- \nAnn\nCEO")).toBe("fine");
    expect(stripQuoted("top\n> quoted line\nbottom")).toBe("top\nbottom");
    expect(stripQuoted("> only a quote")).toBe("> only a quote");
  });

  it("builds Re: subjects without stacking prefixes or tags, and reads the request tag", () => {
    expect(replySubject("Re: RE: Fwd: Plans")).toBe("Re: Plans");
    expect(replySubject("Re: Plans [agentsvc:req_ab-1]")).toBe("Re: Plans");
    expect(replySubject("")).toBe("Re: (no subject)");
    expect(requestTag("Re: Plans [agentsvc:req_ab-1_Z]")).toBe("req_ab-1_Z");
    expect(requestTag("Re: Plans")).toBeUndefined();
  });
});
