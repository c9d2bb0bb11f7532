// The new text of a reply as people's mail clients write it: `>` quotes (RFC 3676 section 4.5,
// https://www.rfc-editor.org/rfc/rfc3676#section-4.5), attribution lines (wrapped by clients at
// 72-78 columns), the `-- ` signature separator (RFC 3676 section 4.3), Outlook's unprefixed
// original; and the decision a reply's first line makes.
import { describe, expect, it } from "vitest";
import { decisionText, stripQuoted } from "../src/inbound.js";

const both = ["approve", "reject"] as const;

describe("the new text of a reply", () => {
  it("an attribution wrapped over two lines goes with the quote below it", () => {
    const text =
      "sounds good\n\nOn Mon, 1 Jan 2024 at 10:00, Assistant Bot of Example\n<bot@example.test> wrote:\n> old\n> text";
    expect(stripQuoted(text)).toBe("sounds good");
  });

  it("an attribution followed by the unprefixed old mail cuts everything from there", () => {
    expect(
      stripQuoted("ok\n\nOn Mon, 1 Jan 2024, Bot <bot@example.test> wrote:\nthe old mail\nmore of it"),
    ).toBe("ok");
  });

  it("a blank-looking line between the attribution and the quote does not hide the answer below", () => {
    expect(stripQuoted("On Mon, 1 Jan 2024, Bot <bot@example.test> wrote:\n   \n> q?\n\nmy answer")).toBe(
      "my answer",
    );
  });

  it("quotes indented by the client are quotes; a `>` inside a line is text", () => {
    expect(stripQuoted("yes\n  > indented quote")).toBe("yes");
    expect(stripQuoted("use a -> b\nthen c")).toBe("use a -> b\nthen c");
  });

  it("only a line of `-- ` is the signature; dashes elsewhere are text", () => {
    expect(stripQuoted("we agreed -- \nplease go")).toBe("we agreed -- \nplease go");
    expect(stripQuoted("-- first item\n-- second item")).toBe("-- first item\n-- second item");
    expect(stripQuoted("the list:\n-- first item")).toBe("the list:\n-- first item");
  });

  it("only whole lines start the quoted original: a rule of underscores or an Original Message line with trailing blanks", () => {
    expect(stripQuoted("Amount: ______________\nplease fill it")).toBe(
      "Amount: ______________\nplease fill it",
    );
    expect(stripQuoted("fine\n\n-----Original Message-----   \nFrom: Bot")).toBe("fine");
    expect(stripQuoted("I think on Monday she wrote:\n> the plan\nagreed")).toBe(
      "I think on Monday she wrote:\nagreed",
    );
  });

  it("runs of blank lines left by the removed quote become one blank line; a mail that is only a quote keeps its text, trimmed", () => {
    expect(stripQuoted("first\n> q\n\n\n\nsecond")).toBe("first\n\nsecond");
    expect(stripQuoted("\n> only a quote\n")).toBe("> only a quote");
  });
});

describe("the decision a reply's first line makes", () => {
  it("blank lines before the first line are skipped; an empty reply is no decision", () => {
    expect(decisionText("\n  \nApprove, go ahead", [...both])).toBe("approve");
    expect(decisionText("", [...both])).toBe("");
  });

  it("approved with more words decides by prefix", () => {
    expect(decisionText("Approved, thanks!", [...both])).toBe("approve");
  });

  it("a first line that does not start with a word is a message, not a decision", () => {
    expect(decisionText("+1, approved", [...both])).toBe("+1, approved");
  });
});
