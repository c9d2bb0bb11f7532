// quietMentions as the gateways use it (gateway-mattermost's channel-wide words, gateway-github's team
// mentions): the caller's pattern, read in the caller's ranges of the text decoded as CommonMark
// decodes it (https://spec.commonmark.org/0.31.2/#backslash-escapes,
// https://spec.commonmark.org/0.31.2/#entity-and-numeric-character-references), and a zero-width
// joiner after each matched `@` in the source.
import { describe, expect, it, vi } from "vitest";
import { type MarkdownNode, type MentionReading, quietMentions, rangeOf } from "../src/index.js";

const ZWJ = "\u200d";

/** Every text node of the tree, the way the gateways read text. */
function textRanges(node: MarkdownNode, out: [number, number][] = []): [number, number][] {
  const range = rangeOf(node);
  if (node.type === "text" && range) out.push(range);
  if ("children" in node) for (const child of node.children) textRanges(child, out);
  return out;
}

/** `@x` as a word: the x, then the end or anything but a letter or digit. */
const X_WORD: MentionReading = {
  mention: /@(?=x(?:$|[^\p{L}\p{N}]))/gu,
  ranges: (tree) => textRanges(tree),
};

/** Every `@` in the ranges the test gives. */
function everyAt(...ranges: [number, number][]): MentionReading {
  return { mention: /@/g, ranges: () => ranges };
}

describe("quietMentions", () => {
  it("puts a zero-width joiner right after each matched @, leaving the rest as written", () => {
    expect(quietMentions("hi @x, and @x.", X_WORD)).toBe(`hi @${ZWJ}x, and @${ZWJ}x.`);
    expect(quietMentions("@xy and x@ stay", X_WORD)).toBe("@xy and x@ stay");
  });

  it("returns the text without parsing it when it holds no @ and no &", () => {
    const ranges = vi.fn(() => [[0, 5]] as [number, number][]);
    const text = "plain words";
    expect(quietMentions(text, { mention: /x/g, ranges })).toBe(text);
    expect(ranges).not.toHaveBeenCalled();
  });

  it("reads a text with an & but no @ (a reference may decode to one)", () => {
    expect(quietMentions("&#64;x", X_WORD)).toBe(`&#64;${ZWJ}x`);
  });

  it("puts the joiner after a backslash-escaped @ (after the escape's two characters)", () => {
    expect(quietMentions("a \\@x b", X_WORD)).toBe(`a \\@${ZWJ}x b`);
  });

  it("keeps a backslash before a character that is not escapable: it stays in the word", () => {
    // `\x` is not an escape: the text reads `@\x`, not `@x`.
    expect(quietMentions("a @\\x b", X_WORD)).toBe("a @\\x b");
  });

  it("takes an escaped & literally: it starts no character reference", () => {
    expect(quietMentions("a \\&#64;x b", X_WORD)).toBe("a \\&#64;x b");
    expect(quietMentions("a \\&commat;x b", X_WORD)).toBe("a \\&commat;x b");
  });

  it("does not decode an escape whose escaped character lies past the caller's range", () => {
    // [0, 1) holds only the backslash: the @ after it is not in the range.
    expect(quietMentions("\\@x", everyAt([0, 1]))).toBe("\\@x");
    expect(quietMentions("\\@x", everyAt([0, 2]))).toBe(`\\@${ZWJ}x`);
  });

  it("decodes decimal character references, up to 8 digits, the joiner after the reference", () => {
    expect(quietMentions("a &#64;x b", X_WORD)).toBe(`a &#64;${ZWJ}x b`);
    expect(quietMentions("a &#00000064;x b", X_WORD)).toBe(`a &#00000064;${ZWJ}x b`);
    // Nine digits is no reference: the text reads `&#000000064;x`.
    expect(quietMentions("a &#000000064;x b", X_WORD)).toBe("a &#000000064;x b");
  });

  it("decodes hex character references with x or X, any case of digits", () => {
    expect(quietMentions("a &#x40;x b", X_WORD)).toBe(`a &#x40;${ZWJ}x b`);
    expect(quietMentions("a &#X40;x b", X_WORD)).toBe(`a &#X40;${ZWJ}x b`);
    expect(quietMentions("&#x0000004a;&#64;x", everyAt([0, 17]))).toBe(`&#x0000004a;&#64;${ZWJ}x`);
    expect(quietMentions("a &#x000000040;x b", X_WORD)).toBe("a &#x000000040;x b");
  });

  it("decodes &commat; to @ and &sol; to /", () => {
    expect(quietMentions("a &commat;x b", X_WORD)).toBe(`a &commat;${ZWJ}x b`);
    const team: MentionReading = { mention: /@(?=o\/t)/g, ranges: (tree) => textRanges(tree) };
    expect(quietMentions("a @o&sol;t b", team)).toBe(`a @${ZWJ}o&sol;t b`);
    expect(quietMentions("a &commat;o&sol;t b", team)).toBe(`a &commat;${ZWJ}o&sol;t b`);
  });

  it("reads any other named reference as a character that ends a word", () => {
    // `&amp;` ends the word `x`; read as nothing, `@xy` would not match, nor undecoded.
    expect(quietMentions("a @x&amp;y b", X_WORD)).toBe(`a @${ZWJ}x&amp;y b`);
    expect(quietMentions("a @x&hellip;y b", X_WORD)).toBe(`a @${ZWJ}x&hellip;y b`);
  });

  it("decodes &#0;, surrogates and code points past U+10FFFF to U+FFFD", () => {
    const replaced: MentionReading = { mention: /@(?=\ufffd)/gu, ranges: (tree) => textRanges(tree) };
    for (const ref of ["&#0;", "&#xD800;", "&#xDFFF;", "&#x110000;", "&#99999999;"]) {
      expect(quietMentions(`a @${ref} b`, replaced), ref).toBe(`a @${ZWJ}${ref} b`);
    }
    for (const ref of ["&#1;", "&#xD7FF;", "&#xE000;", "&#x10FFFF;"]) {
      expect(quietMentions(`a @${ref} b`, replaced), ref).toBe(`a @${ref} b`);
    }
  });

  it("counts a reference to an astral character as its two UTF-16 units", () => {
    // The @ after U+1F600 is the text's third unit: its joiner goes after its own reference.
    expect(quietMentions("&#x1F600;&#64;x", everyAt([0, 15]))).toBe(`&#x1F600;&#64;${ZWJ}x`);
  });

  it("decodes a reference only when it ends inside the caller's range", () => {
    expect(quietMentions("&#64;x", everyAt([0, 5]))).toBe(`&#64;${ZWJ}x`);
    expect(quietMentions("&#64;x", everyAt([0, 4]))).toBe("&#64;x");
  });

  it("reads only the ranges the caller gives", () => {
    expect(quietMentions("@a @b @c", everyAt([3, 5]))).toBe(`@a @${ZWJ}b @c`);
  });

  it("quiets matches in ranges given in any order, offsets compared as numbers", () => {
    // Joiners at 13, 1 and 7 (13 sorts before 7 as text).
    expect(quietMentions("@a @b @c @d @e", everyAt([12, 14], [0, 2], [6, 8]))).toBe(
      `@${ZWJ}a @b @${ZWJ}c @d @${ZWJ}e`,
    );
  });

  it("puts one joiner at an offset matched twice", () => {
    expect(quietMentions("@a @b", everyAt([0, 5], [0, 2]))).toBe(`@${ZWJ}a @${ZWJ}b`);
  });

  it("hands the caller a GFM tree (a bare URL is a link)", () => {
    const links: MentionReading = {
      mention: /@/g,
      ranges: (tree) => {
        const out: [number, number][] = [];
        const walk = (node: MarkdownNode) => {
          const range = rangeOf(node);
          if (node.type === "link" && range) out.push(range);
          if ("children" in node) for (const child of node.children) walk(child);
        };
        walk(tree);
        return out;
      },
    };
    expect(quietMentions("see https://a.example/@x", links)).toBe(`see https://a.example/@${ZWJ}x`);
  });
});

describe("rangeOf", () => {
  it("is a node's source offsets, or undefined when either end has none", () => {
    const at = (offset?: number) => ({ line: 1, column: 1, ...(offset === undefined ? {} : { offset }) });
    expect(rangeOf({ type: "text", value: "a", position: { start: at(2), end: at(5) } })).toEqual([2, 5]);
    expect(rangeOf({ type: "text", value: "a", position: { start: at(2), end: at() } })).toBeUndefined();
    expect(rangeOf({ type: "text", value: "a", position: { start: at(), end: at(5) } })).toBeUndefined();
    expect(rangeOf({ type: "text", value: "a" })).toBeUndefined();
  });
});
