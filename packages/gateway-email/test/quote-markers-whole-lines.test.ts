// Where the quoted previous mail starts, as mail clients write it: Outlook's unprefixed original
// under a "-----Original Message-----" line or a rule of underscores, `>` quotes under an
// attribution line (RFC 3676 section 4.5, https://www.rfc-editor.org/rfc/rfc3676#section-4.5).
// Only whole lines mark it; the same words inside the new text are text.
import { describe, expect, it } from "vitest";
import { stripQuoted } from "../src/inbound.js";

describe("quote markers are whole lines", () => {
  it("an Original Message banner at the end of a line of text is text", () => {
    expect(stripQuoted("see the header -----Original Message-----\nbelow it")).toBe(
      "see the header -----Original Message-----\nbelow it",
    );
  });

  it("a line starting with underscores and going on with text is not Outlook's rule", () => {
    expect(stripQuoted("the form:\n__________ sign here")).toBe("the form:\n__________ sign here");
  });

  it("a mail that is nothing but Outlook's original or a signature keeps its whole text, its `>` lines too", () => {
    expect(stripQuoted("-----Original Message-----\nFrom: Bot\n> quoted")).toBe(
      "-----Original Message-----\nFrom: Bot\n> quoted",
    );
    expect(stripQuoted("-- \nAnn\n> quoted")).toBe("-- \nAnn\n> quoted");
  });

  it("a blank line after an attribution still separates the answers around the quote", () => {
    expect(stripQuoted("first answer\nOn Mon, Bot <bot@example.test> wrote:\n\n> q\nsecond answer")).toBe(
      "first answer\n\nsecond answer",
    );
  });
});
