// A scheduled reply as a template's body parameters: Meta's template rules allow no newlines, tabs
// or more than four spaces in a row (https://developers.facebook.com/docs/whatsapp/message-templates/guidelines).
import { describe, expect, it } from "vitest";
import { templateOf, templateParameters } from "../src/template.js";

describe("template parameters of a scheduled reply", () => {
  it("puts a multi-line reply on one line and keeps runs of spaces under five", () => {
    expect(templateParameters("Report:\n\n- *3* open\tissues\r\n-      2 closed")).toEqual([
      "Report: - *3* open issues -   2 closed",
    ]);
  });

  it("cuts a long reply at word ends into parameters of at most 900 characters, losing no word", () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    const parts = templateParameters(words.join("\n"));
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.length <= 900)).toBe(true);
    expect(parts.join(" ").split(" ")).toEqual(words);
  });

  it("reads the template only from a schedule's origin meta", () => {
    expect(templateOf({ scheduled: { template: { name: "weekly", language: "en_US" } } })).toEqual({
      name: "weekly",
      language: "en_US",
    });
    expect(templateOf({ messageId: "wamid.1" })).toBeUndefined();
    expect(templateOf(undefined)).toBeUndefined();
  });
});
