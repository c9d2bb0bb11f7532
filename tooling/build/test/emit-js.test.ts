// emit-js.mjs writes a package's JavaScript as tsc laid it out (src/x.ts -> dist/x.js and its map),
// leaves out what tsconfig.build.json excludes, and keeps tsc's semantics: imports as written
// (verbatimModuleSyntax), type-only imports erased. The output is loaded by Node to prove it runs.
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CONFIG_DIR, fixturePackage } from "./fixture.js";

const emitJs = resolve(import.meta.dirname, "../emit-js.mjs");

function emit(dir: string): void {
  execFileSync(process.execPath, [emitJs], { cwd: dir, stdio: "pipe" });
}

describe("emit-js", () => {
  const dir = fixturePackage(
    {
      "src/index.ts": [
        'import type { Shape } from "./shape.js";',
        'import { touched } from "./effect.js";',
        'export { area } from "./deep/area.js";',
        "export const unit: Shape = { side: 1 };",
        "",
      ].join("\n"),
      "src/shape.ts": "export interface Shape { side: number }\n",
      "src/effect.ts":
        "export const touched = true;\n(globalThis as Record<string, unknown>).effectRan = true;\n",
      "src/deep/area.ts":
        'import type { Shape } from "../shape.js";\nexport const area = (s: Shape): number => s.side ** 2;\n',
      "src/index.test.ts": "throw new Error('a test file was emitted');\n",
      "src/client/page.ts": "document.title = 'browser only';\n",
    },
    [`${CONFIG_DIR}/src/client`, `${CONFIG_DIR}/src/**/*.test.ts`],
  );
  emit(dir);

  it("writes each compiled file to dist with its source map, in the source layout", () => {
    for (const file of ["index", "shape", "effect", "deep/area"]) {
      expect(existsSync(join(dir, "dist", `${file}.js`))).toBe(true);
      expect(existsSync(join(dir, "dist", `${file}.js.map`))).toBe(true);
    }
  });

  it("emits nothing the tsconfig excludes", () => {
    expect(existsSync(join(dir, "dist/index.test.js"))).toBe(false);
    expect(existsSync(join(dir, "dist/client/page.js"))).toBe(false);
  });

  it("keeps an unused value import (its side effect) and erases type-only imports", async () => {
    const index = readFileSync(join(dir, "dist/index.js"), "utf8");
    expect(index).toContain('"./effect.js"');
    expect(index).not.toContain('"./shape.js"');
    const loaded = await import(pathToFileURL(join(dir, "dist/index.js")).href);
    expect(loaded.area({ side: 3 })).toBe(9);
    expect(loaded.unit).toEqual({ side: 1 });
    expect((globalThis as Record<string, unknown>).effectRan).toBe(true);
  });
});

describe("emit-js over an earlier build", () => {
  const dir = fixturePackage({ "src/index.ts": 'export const built = "first";\n' });
  emit(dir);

  it("renames each new file over the old one: a reader that opened the old file reads all of it", () => {
    const file = join(dir, "dist/index.js");
    const before = readFileSync(file, "utf8");
    const reader = openSync(file, "r");
    try {
      const inode = statSync(file).ino;
      writeFileSync(join(dir, "src/index.ts"), 'export const built = "second";\n');
      emit(dir);
      // Written in place, the open file would be truncated and hold the new text.
      expect(readFileSync(reader, "utf8")).toBe(before);
      expect(statSync(file).ino).not.toBe(inode);
      expect(readFileSync(file, "utf8")).toContain('"second"');
    } finally {
      closeSync(reader);
    }
  });

  it("leaves no temp file in dist", () => {
    expect(readdirSync(join(dir, "dist")).sort()).toEqual(["index.js", "index.js.map"]);
  });
});
