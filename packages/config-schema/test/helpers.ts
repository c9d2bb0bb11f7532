import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { expect, onTestFinished } from "vitest";
import {
  type BuildError,
  formatIssue,
  type LoadResult,
  loadProject,
  PUSH_TYPES,
  type Project,
} from "../src/index.js";

export const BOT_AGENT = `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`;

/**
 * Writes a project into a fresh temp folder. An agent is added unless `agents/` files are given; the
 * nine built-in adapter packages are installed (linked) unless `adapters: false`, since a push
 * entry's platform keys are checked by its adapter. Removed when the calling test ends (a run left
 * some 285 folders in the temp folder); per test, not a hook at import: the files share threads.
 */
export function writeProject(
  files: Record<string, string>,
  opts: { withAgent?: boolean; adapters?: boolean } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-cs-"));
  if (!process.env.AGENTSVC_TEST_KEEP_TMP)
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  if (opts.adapters !== false) linkPackages(dir, BUILT_IN_ADAPTERS);
  const all = { ...files };
  const hasAgent = Object.keys(all).some((f) => f.startsWith("agents/"));
  if (opts.withAgent !== false && !hasAgent) all["agents/bot.ts"] = BOT_AGENT;
  for (const [rel, text] of Object.entries(all)) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  return dir;
}

export async function load(
  files: Record<string, string>,
  opts?: { withAgent?: boolean; adapters?: boolean },
): Promise<LoadResult> {
  return loadProject(writeProject(files, opts));
}

export async function loadOk(files: Record<string, string>): Promise<Project> {
  const r = await load(files);
  if (!r.ok) throw new Error(`expected a valid project, got:\n${r.errors.map(formatIssue).join("\n")}`);
  return r.project;
}

export async function loadErrors(
  files: Record<string, string>,
  opts?: { withAgent?: boolean; adapters?: boolean },
): Promise<BuildError[]> {
  const r = await load(files, opts);
  if (r.ok) throw new Error("expected errors, the project loaded");
  return r.errors;
}

/** Asserts one error at file + key path whose formatted text matches `pattern`. */
export function expectError(errors: BuildError[], file: string, path: string, pattern: RegExp): BuildError {
  const hit = errors.find((e) => e.file === file && e.path === path && pattern.test(formatIssue(e)));
  if (!hit) {
    throw new Error(
      `no error ${file}: ${path}: ${pattern} among:\n${errors.map(formatIssue).join("\n") || "(none)"}`,
    );
  }
  expect(hit.file).toBe(file);
  return hit;
}

const repoRoot = resolve(import.meta.dirname, "../../..");

const BUILT_IN_ADAPTERS = Object.fromEntries(
  PUSH_TYPES.map((t) => [`@agentsvc/gateway-${t}`, `packages/gateway-${t}`]),
);

/** Links real workspace packages into a project's node_modules, as an installed project would have them. */
export function linkPackages(dir: string, packages: Record<string, string>): void {
  for (const [name, folder] of Object.entries(packages)) {
    const target = join(dir, "node_modules", name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(resolve(repoRoot, folder), target, "dir");
  }
}

/**
 * Installs `agentsvc-gateway-toy` in a project's node_modules: an adapter package as
 * docs/building-an-adapter.md describes it (type "toy"), whose schedule key `priority` reads only
 * "high", giving `target` (a JavaScript object literal). No dependencies: its key's schema is a
 * valibot-compatible object written by hand.
 */
export function installToyScheduleAdapter(dir: string, target = "{}"): void {
  const pkg = join(dir, "node_modules", "agentsvc-gateway-toy");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "agentsvc-gateway-toy", type: "module", exports: "./index.js" }),
  );
  writeFileSync(
    join(pkg, "index.js"),
    `export const adapter = { type: "toy", kind: "webhook", account: "bot", secrets: [] };
export const entrySchema = {};
export function createGateway() {}
export const scheduleTarget = {
  entries: { priority: { kind: "schema", type: "unknown", expects: "unknown", async: false, "~run": (d) => ({ ...d, typed: true }) } },
  read: (keys) => keys.priority === "high" ? { target: ${target} } : { issue: { key: "priority", message: "must be high" } },
};
`,
  );
}
