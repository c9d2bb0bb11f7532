import { describe, expect, it } from "vitest";
import { decisionText, stripQuoted } from "../src/inbound.js";
import { replySubject, requestTag } from "../src/thread.js";

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

  it("finds the new text of a bottom-posted reply below the quote, and of interleaved replies", () => {
    const bottom = [
      "On Tue, 2 Jan 2024 at 10:00, Agent <bot@example.test> wrote:",
      "> The agent wants to run delete_file.",
      "> Reply approve or reject.",
      "",
      "approve",
      "",
      "-- ",
      "Ann",
    ].join("\n");
    expect(stripQuoted(bottom)).toBe("approve");
    expect(decisionText(stripQuoted(bottom), ["approve", "reject"])).toBe("approve");
    const interleaved = "> first question?\nanswer one\n> second question?\nanswer two";
    expect(stripQuoted(interleaved)).toBe("answer one\nanswer two");
  });

  it("cuts Outlook's quoted original: the From:/Sent: block and -----Original Message-----", () => {
    const outlook = [
      "Reject - not on a Friday",
      "",
      "________________________________",
      "From: Agent <bot@example.test>",
      "Sent: Tuesday, January 2, 2024 10:00 AM",
      "To: Ann <ann@example.test>",
      "Subject: Approval needed [agentsvc:req_1]",
      "",
      "approve or reject?",
    ].join("\r\n");
    expect(stripQuoted(outlook)).toBe("Reject - not on a Friday");
    const noRule =
      "approve\n\nFrom: Agent <bot@example.test>\nSent: Tuesday, January 2, 2024 10:00\nTo: Ann\n\nold";
    expect(stripQuoted(noRule)).toBe("approve");
    const original = "yes please\n\n-----Original Message-----\nFrom: Agent\nSent: Tue\n\nreject?";
    expect(stripQuoted(original)).toBe("yes please");
    // A line that merely starts with "From:" in the new text is kept.
    expect(stripQuoted("From: the logs I see an error\nplease check")).toBe(
      "From: the logs I see an error\nplease check",
    );
  });

  it("builds Re: subjects without stacking prefixes or tags, and reads the request tag", () => {
    expect(replySubject("Re: RE: Fwd: Plans")).toBe("Re: Plans");
    expect(replySubject("Re: Plans [agentsvc:req_ab-1]")).toBe("Re: Plans");
    expect(replySubject("")).toBe("Re: (no subject)");
    expect(requestTag("Re: Plans [agentsvc:req_ab-1_Z]")).toBe("req_ab-1_Z");
    expect(requestTag("Re: Plans")).toBeUndefined();
  });
});
