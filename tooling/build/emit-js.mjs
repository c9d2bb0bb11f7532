#!/usr/bin/env node
// A package's JavaScript: every source file its tsconfig.build.json compiles, transpiled file by
// file (no bundling, same layout as tsc: src/x.ts -> dist/x.js + dist/x.js.map) with esbuild, which
// reads the same tsconfig options tsc would (target, verbatimModuleSyntax). No type checking here:
// declaration files and type errors come from the one `tsc -b tsconfig.build.json` at the root
// (`pnpm build`), so `bootstrap.sh start` runs in seconds. Run in the package's folder.
// Each file is written under a temp name beside it and renamed over the old one: a test loading
// this package's dist while a build runs reads the whole old file or the whole new one, never a
// half-written one (esbuild's own write truncates the file in place).
import { join } from "node:path";
import * as esbuild from "esbuild";
import { sourceFiles } from "./source-files.mjs";
import { writeFileAtomic } from "./write-atomic.mjs";

const dir = process.cwd();
const files = sourceFiles(dir);
if (files.length === 0) {
  console.error(`emit-js: ${join(dir, "tsconfig.build.json")} selects no .ts file`);
  process.exit(1);
}
const { outputFiles } = await esbuild.build({
  entryPoints: files,
  outdir: join(dir, "dist"),
  outbase: join(dir, "src"),
  tsconfig: join(dir, "tsconfig.build.json"),
  format: "esm",
  target: "es2023", // tooling/tsconfig/base.json's target: esbuild does not take it from the tsconfig
  platform: "node",
  sourcemap: true,
  logLevel: "warning",
  write: false,
});
await Promise.all(outputFiles.map(({ path, contents }) => writeFileAtomic(path, contents)));
