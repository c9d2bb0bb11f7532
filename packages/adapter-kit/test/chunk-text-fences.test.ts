// A fenced code block cut in two stays a code block in both pieces: closed at the end of one and
// reopened with the same info string at the start of the next, every piece within the limit.
import { describe, expect, it } from "vitest";
import { chunkText } from "../src/index.js";

/** The fence lines of a piece (CommonMark: up to 3 spaces, then 3+ backticks or tildes). */
const fenceLines = (piece: string) => piece.split("\n").filter((l) => /^ {0,3}(`{3,}|~{3,})/.test(l));

/** The code lines of a reply cut into pieces, fences removed, in order. */
const codeOf = (pieces: string[]) =>
  pieces.flatMap((p) => {
    const lines = p.split("\n");
    const out: string[] = [];
    let inside = false;
    for (const l of lines) {
      if (/^ {0,3}(`{3,}|~{3,})/.test(l)) inside = !inside;
      else if (inside) out.push(l);
    }
    return out;
  });

describe("chunkText keeps code fences whole", () => {
  const code = Array.from({ length: 40 }, (_, i) => `    const value${i} = compute(${i}); // line ${i}`);
  const reply = `Here is the fix:\n\n\`\`\`ts\n${code.join("\n")}\n\`\`\`\n\nThat is all.`;

  it("closes a block cut in two and reopens it with the same info string", () => {
    const pieces = chunkText(reply, 500);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(500);
      expect(fenceLines(p).length % 2, `unbalanced fences in:\n${p}`).toBe(0);
    }
    // Every piece after the first that holds code starts by reopening the block as TypeScript.
    const withCode = pieces.filter((p) => p.includes("compute("));
    for (const p of withCode.slice(1)) expect(p.startsWith("```ts\n")).toBe(true);
    for (const p of withCode.slice(0, -1)) expect(p.endsWith("\n```")).toBe(true);
    expect(pieces[0]?.startsWith("Here is the fix:")).toBe(true);
    expect(pieces.at(-1)?.endsWith("That is all.")).toBe(true);
  });

  it("loses no code line and keeps the indentation of each", () => {
    expect(codeOf(chunkText(reply, 500))).toEqual(code);
    expect(codeOf(chunkText(reply, 120))).toEqual(code);
  });

  it("cuts a 10,000-character line without whitespace inside a block into pieces of exactly the limit", () => {
    const text = `\`\`\`\n${"x".repeat(10_000)}\n\`\`\``;
    const pieces = chunkText(text, 4096);
    for (const p of pieces.slice(0, -1)) expect(p.length).toBe(4096);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p.startsWith("```\n")).toBe(true);
      expect(p.endsWith("\n```")).toBe(true);
    }
    expect(codeOf(pieces).join("")).toBe("x".repeat(10_000));
  });

  it("cuts a 10,000-character reply without whitespace outside any block into pieces of exactly the limit", () => {
    const pieces = chunkText("y".repeat(10_000), 4096);
    expect(pieces.map((p) => p.length)).toEqual([4096, 4096, 1808]);
  });

  it("reopens tilde fences and longer backtick fences with their own marker", () => {
    const tildes = `~~~python\n${Array.from({ length: 30 }, (_, i) => `print(${i})`).join("\n")}\n~~~`;
    for (const p of chunkText(tildes, 80)) {
      expect(p.length).toBeLessThanOrEqual(80);
      expect(p.startsWith("~~~python\n")).toBe(true);
      expect(p.endsWith("\n~~~")).toBe(true);
    }
    const four = `\`\`\`\`md\n${Array.from({ length: 30 }, (_, i) => `\`\`\` not a fence ${i}`).join("\n")}\n\`\`\`\``;
    for (const p of chunkText(four, 90)) {
      expect(p.length).toBeLessThanOrEqual(90);
      expect(p.startsWith("````md\n")).toBe(true);
      expect(p.endsWith("\n````")).toBe(true);
    }
  });

  it("does not touch a block that fits in one piece, nor prose around it", () => {
    const text = `${"intro ".repeat(20).trim()}\n\n\`\`\`js\nshort()\n\`\`\`\n\n${"outro ".repeat(20).trim()}`;
    const pieces = chunkText(text, 130);
    expect(pieces.join("\n\n")).toBe(text);
  });

  it("starts a block in the next piece rather than leaving an empty block behind", () => {
    const text = `${"a".repeat(50)}\n\`\`\`sh\n${"echo hi\n".repeat(10).trim()}\n\`\`\``;
    const pieces = chunkText(text, 60);
    expect(pieces[0]).toBe("a".repeat(50));
    for (const p of pieces.slice(1)) expect(p.startsWith("```sh\n")).toBe(true);
  });

  it("keeps every piece within the limit for mixed replies and any limit", () => {
    const blocks = [
      "Some words here and there.",
      "```ts\nconst a = 1;\nif (a) {\n  return a * 2;\n}\n```",
      "More prose, with a list:\n- one\n- two",
      `\`\`\`\n${"z".repeat(300)}\n\`\`\``,
      "~~~\nplain tilde block\n~~~",
    ];
    const text = Array.from({ length: 12 }, (_, i) => blocks[i % blocks.length]).join("\n\n");
    for (const limit of [1, 5, 12, 20, 37, 64, 100, 256, 4096]) {
      const pieces = chunkText(text, limit);
      for (const p of pieces) expect(p.length).toBeLessThanOrEqual(limit);
      if (limit >= 20) for (const p of pieces) expect(fenceLines(p).length % 2).toBe(0);
    }
  });

  it("ends and stays within the limit on arbitrary mixes of fences, breaks and surrogate pairs", () => {
    // A small seeded generator, so a failure names its input.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const parts = ["```", "~~~", "````ts", "\n", "\n\n", " ", "word", "😀", "  indent", "`", "x".repeat(40)];
    for (let round = 0; round < 300; round++) {
      const text = Array.from(
        { length: 5 + Math.floor(random() * 60) },
        () => parts[Math.floor(random() * parts.length)],
      ).join("");
      const limit = 1 + Math.floor(random() * 80);
      const pieces = chunkText(text, limit);
      for (const p of pieces) {
        expect(p.length, JSON.stringify({ text, limit })).toBeLessThanOrEqual(limit);
        expect(p.length).toBeGreaterThan(0);
      }
    }
  });
});
