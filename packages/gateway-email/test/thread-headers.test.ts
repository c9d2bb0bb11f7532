// What a reply's threading headers and subject are made of (thread.ts): mail clients group a
// conversation by Re: subjects and References (RFC 5322 section 3.6.4), so these are promises to
// whoever reads the mails in a client. Rows from the survivors of `pnpm mutate gateway-email` (#44).
import { describe, expect, it } from "vitest";
import { domainOf, keepReferences, replySubject, requestTag } from "../src/thread.js";

describe("reply subjects", () => {
  it("drop the request tag wherever it stands, with the spaces around it, and keep the words on both sides", () => {
    expect(replySubject("Plans [agentsvc:req_1] for Monday")).toBe("Re: Plans for Monday");
    expect(replySubject("[agentsvc:req_1]Plans")).toBe("Re: Plans");
    expect(replySubject("Plans[agentsvc:req_1]")).toBe("Re: Plans");
    expect(replySubject("Plans-[agentsvc:req_1]-draft")).toBe("Re: Plans- -draft");
  });

  it("drop every reply and forward prefix of other languages and numbered ones, only at the start", () => {
    expect(replySubject("  re : AW: SV:Fw: FWD: Plans")).toBe("Re: Plans");
    expect(replySubject("Re[2]: Re [12] : Plans")).toBe("Re: Plans");
    expect(replySubject("Re:Plans")).toBe("Re: Plans");
    expect(replySubject("Re:\tPlans")).toBe("Re: Plans");
    expect(replySubject("Re[x]: Plans")).toBe("Re: Re[x]: Plans");
    expect(replySubject("Status Re: Plans")).toBe("Re: Status Re: Plans");
    expect(replySubject("Fwd Plans")).toBe("Re: Fwd Plans");
  });

  it("read a request tag only in its own form", () => {
    expect(requestTag("[agentsvc:req_AZ09-_x]")).toBe("req_AZ09-_x");
    expect(requestTag("[agentsvc:abc]")).toBeUndefined();
    expect(requestTag("[agentsvc:req_a b]")).toBeUndefined();
  });
});

describe("References of a reply", () => {
  it("keep every id, once each and in order, up to ten", () => {
    const ids = Array.from({ length: 10 }, (_, i) => `<m${i}@x>`);
    expect(keepReferences(ids)).toEqual(ids);
    expect(keepReferences(["<a@x>", "<b@x>", "<a@x>", "<c@x>"])).toEqual(["<a@x>", "<b@x>", "<c@x>"]);
    expect(keepReferences([])).toEqual([]);
  });

  it("past ten keep the conversation's first id and the nine newest", () => {
    const ids = Array.from({ length: 11 }, (_, i) => `<m${i}@x>`);
    expect(keepReferences(ids)).toEqual(["<m0@x>", ...ids.slice(2)]);
    const many = Array.from({ length: 40 }, (_, i) => `<m${i}@x>`);
    expect(keepReferences(many)).toEqual(["<m0@x>", ...many.slice(31)]);
  });
});

describe("the domain of an address (our Message-IDs and DKIM alignment use it)", () => {
  it("is what follows the @, up to a closing bracket or space", () => {
    expect(domainOf("ann@example.com")).toBe("example.com");
    expect(domainOf("Ann <ann@mail.example.com>")).toBe("mail.example.com");
    expect(domainOf("ann@example.com other")).toBe("example.com");
  });

  it("is a reserved invalid domain when there is none", () => {
    expect(domainOf("no address")).toBe("agentsvc.invalid");
    expect(domainOf("")).toBe("agentsvc.invalid");
  });
});
