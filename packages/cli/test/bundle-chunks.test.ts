// The bundled command (scripts/bundle.mjs) as `pnpm build` leaves it: a CommonJS package loaded by
// a dynamic import must keep the named exports Node gives it. esbuild alone made such a chunk
// `export default require_x();` only, and `(await import("prom-client")).Registry` was undefined.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers.js";

const dir = join(repoRoot, "packages/cli/dist/bundle");
// The newest build's files: earlier builds' chunks stay beside them for bins still running
// (tooling/build/bundle-swap.mjs lists each build in .builds.json).
const chunks = ((JSON.parse(readFileSync(join(dir, ".builds.json"), "utf8")) as string[][])[0] ?? []).filter(
  (f) => f.endsWith(".js"),
);
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

/** The chunks a file loads before it runs: itself and its static imports, transitively. */
function staticClosure(from: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...from];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(join(dir, file), "utf8");
    for (const m of source.matchAll(/^(?:import|\} from|export \{[^}]*\} from)[^;]*?"\.\/([\w-]+\.js)";?$/gm))
      queue.push(m[1] as string);
  }
  return seen;
}
/** The chunks holding code of files under `prefix` (esbuild marks each input with a `// <path>` line). */
const chunksOf = (prefix: string) =>
  chunks.filter((f) => readFileSync(join(dir, f), "utf8").includes(`\n// ${prefix}`));

describe("what a start of a SQLite project with an agent route, a chat page and an MCP route evaluates (#45)", () => {
  // The server (the start verb imports it) and the chat page's modules (compose imports them for a webui entry).
  const started = () =>
    staticClosure(["../../apps/server/dist/", "../webui/dist/", "../webui-page/dist/"].flatMap(chunksOf));

  it("holds neither ws (a socket gateway loads it at its first connection) nor file-type (the first file sniffed)", () => {
    const text = [...started()].map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text).toContain("// ../../apps/server/dist/compose.js");
    expect(text).not.toMatch(/node_modules\/ws\/lib\/websocket\.js/);
    expect(text).not.toMatch(/node_modules\/file-type\//);
  });

  it("holds no YAML parser with the project loader (js-yaml loads at the first YAML file parsed, the yaml package for a file js-yaml rejects: neither at a restart whose files are unchanged)", () => {
    const loader = staticClosure(chunksOf("../config-schema/dist/load/"));
    const text = [...started(), ...loader].map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text).toContain("// ../config-schema/dist/load/module.js");
    expect(text).not.toMatch(/node_modules\/yaml\/dist\//);
    expect(text).not.toMatch(/node_modules\/js-yaml\//);
    expect(chunksOf("../../node_modules/.pnpm/yaml@")).toHaveLength(1);
    expect(chunksOf("../../node_modules/.pnpm/js-yaml@")).toHaveLength(1);
  });

  it("holds none of drizzle's PostgreSQL column types (pg-core's columns load with a PostgreSQL store only)", () => {
    const text = [...started()].map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text).toContain("/drizzle-orm/relations.js");
    expect(text).toContain("/drizzle-orm/sqlite-core/");
    expect(text).not.toMatch(/\/drizzle-orm\/pg-core\/primary-keys\.js/);
    expect(text).not.toMatch(/\/drizzle-orm\/pg-core\/columns\/(?!common|enum)\w+\.js/);
  });

  it("holds drizzle's ES modules, not its CommonJS build (a CommonJS module is bundled whole, none of it tree-shaken)", () => {
    const text = [...started()].map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text).toContain("/drizzle-orm/sqlite-core/dialect.js");
    expect(
      chunks.filter((f) => /\/drizzle-orm\/[\w/.-]+\.cjs\n/.test(readFileSync(join(dir, f), "utf8"))),
    ).toEqual([]);
  });

  it("holds no gateway session (made for a project with a gateway, a schedule or store work for it: the server's idle-session.ts)", () => {
    const text = [...started()].map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text).toContain("// ../session-core/dist/scheduler.js");
    expect(text).not.toContain("// ../session-core/dist/session.js");
    expect(chunksOf("../session-core/dist/session.js")).toHaveLength(1);
  });

  it("relations.js's stand-in for pg-core's PrimaryKeyBuilder matches exactly what the real class matches", () => {
    const marker = "/drizzle-orm/relations.js\n";
    const file = chunks.find((f) => readFileSync(join(dir, f), "utf8").includes(marker)) as string;
    const source = readFileSync(join(dir, file), "utf8");
    const module = source.slice(source.indexOf(marker));
    const standIn = /^var PrimaryKeyBuilder = (class \{[^}]*\});$/m.exec(module)?.[1];
    expect(standIn).toBeDefined();
    // drizzle as chat-store loads it (the bundle's copy is the same files).
    const drizzle = createRequire(join(repoRoot, "packages/chat-store/package.json"));
    const { entityKind, is } = drizzle("drizzle-orm");
    const pg = drizzle("drizzle-orm/pg-core");
    const sqlite = drizzle("drizzle-orm/sqlite-core");
    const StandIn = new Function("entityKind", `return ${standIn}`)(entityKind);
    expect(is(new pg.PrimaryKeyBuilder([], "k"), StandIn)).toBe(true);
    expect(is(new sqlite.PrimaryKeyBuilder([], "k"), StandIn)).toBe(false);
    expect(is(new pg.UniqueConstraintBuilder([], "u"), StandIn)).toBe(false);
  });
});
