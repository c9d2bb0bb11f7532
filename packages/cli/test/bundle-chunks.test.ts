// The bundled command (scripts/bundle.mjs) as `pnpm build` leaves it: a CommonJS package loaded by
// a dynamic import must keep the named exports Node gives it. esbuild alone made such a chunk
// `export default require_x();` only, and `(await import("prom-client")).Registry` was undefined.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers.js";

const dir = join(repoRoot, "packages/cli/dist/bundle");
const chunks = readdirSync(dir).filter((f) => f.endsWith(".js"));
/** The export statement at a chunk's end. */
const exportsOf = (file: string) =>
  /export\s*\{[^}]*\};?\s*$|export default [^;]+;\s*$/.exec(readFileSync(join(dir, file), "utf8"))?.[0] ?? "";

describe("the bundled agentsvc command", () => {
  it("gives every dynamically imported CommonJS package its named exports, not only a default", () => {
    const defaultOnly = chunks.filter((f) => /^export default require_\w+\(\);\s*$/.test(exportsOf(f)));
    expect(defaultOnly).toEqual([]);
  });

  it("exports prom-client's Registry and collectDefaultMetrics by name (what metrics.ts reads)", () => {
    const prom = chunks.find((f) => f.startsWith("prom-client-"));
    expect(prom).toBeDefined();
    const names = exportsOf(prom as string);
    expect(names).toMatch(/ as Registry\b/);
    expect(names).toMatch(/ as collectDefaultMetrics\b/);
  });
});
