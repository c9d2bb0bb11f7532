// What of a turn's reply is left to send after the parts sent before its approval requests.
import { describe, expect, it } from "vitest";
import { afterPrefix } from "../src/reply-prefix.js";

describe("afterPrefix", () => {
  it("finds the prefix whatever whitespace joins its parts, and trims the rest", () => {
    // Stored after two requests (parts joined by a space) against the turn's text (blank lines).
    expect(afterPrefix("one\n\ntwo\n\nthree", "one two")).toBe("three");
    expect(afterPrefix("one two  three", "one\ntwo")).toBe("three");
  });

  it("answers undefined when the text does not start with the prefix", () => {
    expect(afterPrefix("one\n\nthree", "one two")).toBeUndefined();
    expect(afterPrefix("on", "one")).toBeUndefined();
  });

  it("with no prefix, is the whole text, trimmed", () => {
    expect(afterPrefix("  all of it \n", "")).toBe("all of it");
  });
});
