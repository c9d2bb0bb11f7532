// Random Markdown built from the pieces models write: emphasis, links with and without
// parentheses, code spans, fences, tables, lists, raw HTML, stray markup characters, mentions.
import fc from "fast-check";

export const word = fc.constantFrom(
  "alpha",
  "b<c",
  "d&e",
  "f>g",
  "snake_case",
  "2*3",
  "x|y",
  "(p)",
  "é",
  "😀",
  '"q"',
  "@everyone",
  "<@123>",
  "supercalifragilisticexpialidocious-and-then-some",
);
export const url = fc.constantFrom(
  "https://e.test/a",
  "https://en.wikipedia.org/wiki/Mercury_(planet)",
  "https://e.test/?a=1&b=2",
  "https://e.test/(x)/(y)",
);
const inline: fc.Arbitrary<string> = fc.letrec<{ inline: string }>((tie) => ({
  inline: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    word,
    fc.tuple(tie("inline"), tie("inline")).map(([a, b]) => `${a} ${b}`),
    tie("inline").map((t) => `**${t}**`),
    tie("inline").map((t) => `*${t}*`),
    // Not around another strikethrough: `~~~~x~~~~` at a line's start is a code fence, not text.
    tie("inline")
      .filter((t) => !/^~|~$/.test(t))
      .map((t) => `~~${t}~~`),
    fc.tuple(word, url).map(([t, u]) => `[${t}](${u})`),
    fc.tuple(word, url).map(([t, u]) => `![${t}](${u})`),
    word.map((t) => `\`${t}\``),
    word.map((t) => `\`\` a\`${t} \`\``),
    fc.constantFrom("<b>raw</b>", "<script>x</script>", "*", "_", "`", "[", "](", "&amp;", "<"),
  ),
})).inline;
const block = fc.oneof(
  inline,
  inline.map((t) => `## ${t}`),
  inline.map((t) => `> ${t}`),
  fc.array(inline, { minLength: 1, maxLength: 3 }).map((items) => items.map((t) => `- ${t}`).join("\n")),
  fc
    .array(inline, { minLength: 1, maxLength: 3 })
    .map((items) => items.map((t, i) => `${i + 1}. ${t}`).join("\n")),
  fc
    .tuple(fc.constantFrom("", "ts"), fc.array(inline, { maxLength: 3 }))
    .map(([lang, lines]) => `\`\`\`${lang}\n${lines.join("\n")}\n\`\`\``),
  fc.tuple(word, word, inline, inline).map(([a, b, c, d]) => `| ${a} | ${b} |\n|---|---|\n| ${c} | ${d} |`),
);
export const markdown = fc.array(block, { minLength: 1, maxLength: 6 }).map((blocks) => blocks.join("\n\n"));
