// A plain YAML file's data without a parser (yaml-lite.ts, #45) is the yaml package's: on documents
// inside its subset (read by it) and just outside (left to the parsers). yaml-data.test.ts compares
// fastYamlData, which tries it first, on every YAML file of the repository too.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { liteData, yamlPackageData } from "../src/load/yaml-data.js";

const READ = [
  "a: 1\nb: x\nc: true\nd: ~\ne:\nf: 1.5\ng: 0x1F\nh: 007\n",
  "# a comment\na: 1 # c\n  # an indented comment\nb: 'it''s' # c\nc: \"x y\"  # c\n",
  "a: x#y\nb: b, c [d] {e}\nc: 12:30\nd: 2024-01-01\ne: /path/x\nf: what?\n",
  "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
  "a:\n- x\n- 'y'\nb: z\n",
  '- x\n- 2\n- "z"\n',
  "a:\n  - x\n  - y\n",
  "users:\n  - username: ada\n    passwordEnvVar: A\n  -   username: bob\n      admin: true\nnext: 1\n",
  "a: |\n  x\n  y\nb: 1\n",
  "a: |-\n  x\n  # not a comment\nb: 1\n",
  "a: >\n  x\n  y\n\n\nb: 1\n",
  "a: >-\n    x, y:\n    z\n",
  "a: >- # c\n  x\n",
  "a:    \nb: 1\n",
  'title: "👋"\nwelcome: >-\n  Hi! I run: offline.\n  Ask me.\n',
  "theme:\n  accent: 001122\n  size: 1.50\n  dark:\n    bg: 111827\ntitle: 007\n",
  "a.b/c-d: 1\n_x: 2\n",
  // no line break at the end of the file
  "a: |\n  x",
  "a: >\n  x\n  y",
  "k: v #c\n#end",
  "- x\n-  y",
  "a:\n- b: 1\n  c: |\n    t\n- d\n",
];

const LEFT = [
  "a: >-\n  x\n   y\n",
  "a: |\n  x\n\n  y\n",
  "a: |\n  x  \n",
  "a: |\n",
  "a: >\nb: 1\n",
  "a: |+\n  x\n",
  "a: |2\n   x\n",
  'a: "x\\ty"\n',
  "a: 'x\n  y'\n",
  "a: x\n  y\n",
  "a: -1\n",
  "a: [1, 2]\n",
  "a: {b: 1}\n",
  "a: &x 1\nb: *x\n",
  "a: !!str 1\n",
  "a: b: c\n",
  "a: 1\na: 2\n",
  "a:\n   b: 1\n  c: 2\n",
  "- a: 1\n  - b\n",
  "-\n  - x\n",
  "- a b: 1\n",
  "true: 1\n",
  "null: 1\n",
  "__proto__: {polluted: 1}\n",
  "key with spaces: v\n",
  "\ta: 1\n",
  "a: 1\r\n",
  "---\na: 1\n",
  "just text\n",
  "",
  " a: 1\n",
];

describe("YAML data without a parser (yaml-lite)", () => {
  it.each(READ)("reads %j as the yaml package does", async (text) => {
    const lite = liteData(text);
    expect(lite).toBeDefined();
    const reference = await yamlPackageData(text);
    expect(lite).toEqual(reference);
    expect(isDeepStrictEqual(lite, reference)).toBe(true);
  });

  it.each(LEFT)("leaves %j to the parsers", (text) => {
    expect(liteData(text)).toBeUndefined();
  });

  it("reads examples/hello's gateway files itself (a first start loads no YAML parser)", () => {
    for (const name of ["agent", "tools", "web"]) {
      const text = readFileSync(
        resolve(import.meta.dirname, `../../../examples/hello/gateways/${name}.yaml`),
        "utf8",
      );
      expect(liteData(text), name).toMatchObject({ ok: true });
    }
  });
});
