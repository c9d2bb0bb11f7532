// emit-js.mjs transpiles exactly the files tsc compiles for each package: the list is compared with
// TypeScript's own reading of every package's tsconfig.build.json (include, exclude, extends).
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../source-files.mjs";
import { CONFIG_DIR, fixturePackage } from "./fixture.js";

const root = resolve(import.meta.dirname, "../../..");
const packageDirs = ["packages", "apps", "tooling"]
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name)))
  .filter((dir) => existsSync(join(dir, "tsconfig.build.json")));

function typescriptFiles(dir: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, "tsconfig.build.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!parsed) throw new Error(`${dir}: tsconfig.build.json not read`);
  return parsed.fileNames.filter((file) => !file.endsWith(".d.ts")).sort();
}

describe("sourceFiles", () => {
  it("finds the packages to compare", () => {
    expect(packageDirs.length).toBeGreaterThan(20);
  });

  it.each(packageDirs.map((dir) => [dir.slice(root.length + 1), dir]))(
    "selects the files tsc compiles in %s",
    (_name, dir) => {
      const ours = sourceFiles(dir);
      expect(ours.length).toBeGreaterThan(0);
      expect(ours).toEqual(typescriptFiles(dir));
    },
  );

  it("leaves out test files and webui-page's browser client", () => {
    const files = sourceFiles(join(root, "packages/webui-page"));
    expect(files.some((file) => file.includes("/src/client/"))).toBe(false);
    expect(files.some((file) => /\.test\.ts$/.test(file))).toBe(false);
    expect(files).toContain(join(root, "packages/webui-page/src/client.gen.ts"));
  });
});

describe("sourceFiles on the preset's patterns", () => {
  const files = {
    "src/index.ts": "export const a = 1;\n",
    "src/deep/er/leaf.ts": "export const b = 2;\n",
    "src/deep/leaf.test.ts": "export {};\n",
    "src/index.test.ts": "export {};\n",
    "src/__tests__/helper.ts": "export {};\n",
    "src/deep/__tests__/more/helper.ts": "export {};\n",
    "src/types.d.ts": "export type T = number;\n",
    "src/client/page.ts": "export {};\n",
    "src/client-side.ts": "export {};\n",
    "test/outside.ts": "export {};\n",
  };

  it("matches TypeScript with the preset's own exclude", () => {
    const dir = fixturePackage(files);
    expect(sourceFiles(dir)).toEqual(typescriptFiles(dir));
    expect(sourceFiles(dir).map((file) => file.slice(dir.length + 1))).toEqual([
      "src/client-side.ts",
      "src/client/page.ts",
      "src/deep/er/leaf.ts",
      "src/index.ts",
    ]);
  });

  it("matches TypeScript when the package excludes a folder of its own", () => {
    const dir = fixturePackage(files, [`${CONFIG_DIR}/src/client`, `${CONFIG_DIR}/src/**/*.test.ts`]);
    expect(sourceFiles(dir)).toEqual(typescriptFiles(dir));
    expect(sourceFiles(dir)).not.toContain(join(dir, "src/client/page.ts"));
    expect(sourceFiles(dir)).toContain(join(dir, "src/client-side.ts"));
  });
});
