// A YAML file's data read by js-yaml is the yaml package's (yaml-data.ts, #45): on every YAML file
// in the repository, on scalars the two schemas could resolve differently, and on documents either
// rejects; a file js-yaml gives up on is the yaml package's to read and report.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { fastYamlData, yamlPackageData } from "../src/load/yaml-data.js";

const repoRoot = resolve(import.meta.dirname, "../../..");
const SKIP = new Set(["node_modules", ".git", "dist", ".runs", ".turbo", ".agentsvc", "pnpm-lock.yaml"]);

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(entry.name)) out.push(path);
  }
  return out;
}

const SCALARS = [
  "1",
  "-1",
  "+1",
  "0",
  "-0",
  "007",
  "0o17",
  "0x1F",
  "0X1F",
  "0b101",
  "1_000",
  "1.5",
  "1.",
  ".5",
  "1e3",
  "1E-3",
  "1.5e+3",
  "1.50",
  ".inf",
  "-.Inf",
  "+.INF",
  ".nan",
  ".NaN",
  "NaN",
  "inf",
  "true",
  "True",
  "TRUE",
  "tRue",
  "yes",
  "no",
  "on",
  "off",
  "y",
  "n",
  "null",
  "Null",
  "NULL",
  "~",
  "",
  "2024-01-01",
  "2024-01-01T10:00:00Z",
  "12:30",
  "1:20:30",
  "0.1.2",
  "'1'",
  '"1"',
  "!!str 1",
  '!!int "5"',
  "!!float 1",
  "!!float 1.5",
  "!!bool true",
  "!!null ''",
  "111827",
  "001122",
  "4f46e5",
  "1e3a5f",
  "9007199254740993",
  "0x",
  "+0x1",
  "-0o7",
  "1 # c",
  "[1, 2]",
  "[a, 1.0]",
  "{a: 1}",
  "{a: {b: 007}}",
  "- 1",
  "&a 1",
  "*a",
  '"\\u00e9\\x41\\t"',
  "'it''s'",
  "@x",
  "`x",
  "%x",
  "a\tb",
  '"a',
  "'a",
  "[1, 2",
  "{a: 1",
];

const DOCUMENTS = [
  "a: 1\na: 2\n",
  "a:\n  b: 1\n b: 2\n",
  "a: [1,\n",
  "a: b: c\n",
  "- a\nb: 1\n",
  "a: 1\n---\nb: 2\n",
  "---\na: 1\n...\n",
  "a: &x 1\nb: *x\n",
  "a: *y\n",
  "x: !foo bar\n",
  "x: !!timestamp 2020-01-01\n",
  "x: !!binary aGk=\n",
  "x: !!set {a, b}\n",
  "\ta: 1\n",
  "a:\n\t- 1\n",
  "a: 'x\n",
  'a: "x\\q"\n',
  "%YAML 1.2\n---\na: 1\n",
  "%YAML 1.1\n---\na: 1\n",
  "{a: 1, a: 2}\n",
  "? [1, 2]\n: x\n",
  "? {a: 1}\n: x\n",
  "? a\n: b\n",
  "1: a\n2: b\n",
  "1.0: a\n0x10: b\n",
  "null: a\n",
  "~: a\n",
  ": a\n",
  "x:\n  null: a\n",
  "- null: a\n",
  "{null: a}\n",
  "{a: 1, ~: b}\n",
  "[a]: b\n",
  "true: a\n",
  "__proto__: {polluted: 1}\n",
  "a: b\n  c: d\n",
  "a:\n- 1\n- 2\n",
  "",
  "# only a comment\n",
  "- 1\n- 2\n",
  "just text\n",
  "a: |\n  x\n b: 1\n",
  "a: 1 # c\n#c\nb: 2\n",
  "a:    \n",
  "a: >\n\n  x\n\n",
  "key with spaces: v\n",
  '"quoted key": v\n',
  "a: [1, 2, ]\n",
  "a: {b: 1, }\n",
  "a: [a, b]: c\n",
  "a: - 1\n",
  "a: x\n  - 1\n",
  "a:\n  - b: 1\n    c: 2\n  - d\n",
  "anchors: &base {a: 1}\nderived:\n  <<: *base\n  b: 2\n",
  "a: 'multi\n  line'\n",
  'a: "multi\n  line"\n',
  "a: plain\n  continued\n",
  "\ufeffa: 1\n",
  "a: 1\r\nb: 2\r\n",
  "a: \u0007\n",
  "text: 'a, null: b'\n",
  // theme: numbers that are map values keep their text, a sequence's own items stay numbers
  "theme: 5\n",
  "theme: [1, 2.50]\n",
  "theme:\n  - 1\n  - bg: 0011\n",
  "theme:\n  accent: 001122\n  dark:\n    bg: 1.50\n",
  "theme:\n  a: &n 007\nother: *n\n",
  "size: &n 007\ntheme:\n  a: *n\n",
  "theme:\n  1.0: 2.0\n",
  "theme:\n  a: !!int '5'\n  b: true\n  c: ~\n  d: .inf\n",
  "- theme: {a: 1}\n",
  "theme: {}\ntitle: 0x1F\n",
];

const cases: [string, string][] = [
  ...yamlFiles(repoRoot).map((f): [string, string] => [
    f.slice(repoRoot.length + 1),
    readFileSync(f, "utf8"),
  ]),
  ...SCALARS.map((s): [string, string] => [`scalar ${JSON.stringify(s)}`, `v: ${s}\ntheme:\n  x: ${s}\n`]),
  ...DOCUMENTS.map((d): [string, string] => [`document ${JSON.stringify(d)}`, d]),
];

describe("YAML data read by js-yaml", () => {
  it("finds YAML files in the repository to compare (the examples and fixtures)", () => {
    expect(cases.filter(([name]) => name.startsWith("examples/hello/")).length).toBe(3);
    expect(cases.filter(([name]) => /\.ya?ml$/.test(name)).length).toBeGreaterThan(30);
  });

  it.each(cases)("%s: the same data as the yaml package's, or left to it", async (_name, text) => {
    const fast = await fastYamlData(text);
    const reference = await yamlPackageData(text);
    if (fast === undefined) return;
    // The data js-yaml gives is the yaml package's; a file the yaml package rejects, js-yaml never reads.
    expect(reference.ok).toBe(true);
    expect(fast).toEqual(reference);
    expect(isDeepStrictEqual(fast, reference)).toBe(true);
  });

  it("reads every YAML file of the repository itself (the yaml package loads for none of them)", async () => {
    const files = cases.filter(([name]) => /\.ya?ml$/.test(name));
    const left = [];
    for (const [name, text] of files) if ((await fastYamlData(text)) === undefined) left.push(name);
    expect(left).toEqual([]);
  });

  it("keeps a theme's bare hex digits as text and reads numbers elsewhere", async () => {
    const text = "exposes: webui\nmaxBytes: 1000\ntheme:\n  accent: 001122\n  dark:\n    bg: 111827\n";
    expect(await fastYamlData(text)).toEqual({
      ok: true,
      value: { exposes: "webui", maxBytes: 1000, theme: { accent: "001122", dark: { bg: "111827" } } },
    });
  });

  it("leaves a file with a syntax error to the yaml package, which names the line of each error", async () => {
    const text = "exposes: agent\npath: /a\npath: /b\ntitle: [x\n";
    expect(await fastYamlData(text)).toBeUndefined();
    expect(await yamlPackageData(text)).toMatchObject({
      ok: false,
      errors: [
        { where: "line 3", message: expect.stringMatching(/^Map keys must be unique/) },
        { where: "line 5" },
      ],
    });
  });

  it("reports an alias used before its anchor as invalid YAML (yaml's toJS() threw it)", async () => {
    expect(await fastYamlData("a: *y\n")).toBeUndefined();
    expect(await yamlPackageData("a: *y\n")).toEqual({
      ok: false,
      errors: [{ where: "", message: expect.stringMatching(/Unresolved alias/) }],
    });
  });
});
