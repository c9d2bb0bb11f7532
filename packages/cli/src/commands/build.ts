import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { BuildError, BuildWarning, Project } from "@agentsvc/config-schema";
import { type BuildStep, buildSteps } from "../build-steps.js";
import { type Command, EXIT_FAIL, EXIT_OK } from "../command.js";
import { projectManifest } from "../manifest.js";
import { printIssues } from "../report.js";

export interface BuildOptions {
  /** Output folder; default `<dir>/.agentsvc/build`. */
  outDir?: string;
  /** Steps to run after the manifest instead of the registered ones (default: `buildSteps()`). */
  steps?: BuildStep[];
}

export type BuildResult =
  | { ok: true; project: Project; outDir: string; files: string[]; warnings: BuildWarning[] }
  | { ok: false; errors: BuildError[]; warnings: BuildWarning[] };

export const DEFAULT_OUT = join(".agentsvc", "build");

/** Validates the project, writes manifest.json, then runs the build steps. */
export async function buildProject(dir: string, options: BuildOptions = {}): Promise<BuildResult> {
  const { loadProject } = await import("@agentsvc/config-schema");
  const result = await loadProject(dir);
  if (!result.ok) return result;
  const outDir = resolve(options.outDir ?? join(result.project.root, DEFAULT_OUT));
  mkdirSync(outDir, { recursive: true });
  const manifest = join(outDir, "manifest.json");
  writeFileSync(manifest, `${JSON.stringify(projectManifest(result.project), null, 2)}\n`);
  for (const step of options.steps ?? buildSteps()) await step(result.project, outDir);
  return { ok: true, project: result.project, outDir, files: [manifest], warnings: result.warnings };
}

export const buildCommand: Command = {
  name: "build",
  summary: "Validate a project and write its build output (manifest.json, then any build steps).",
  args: ["[dir]"],
  options: {
    out: {
      type: "string",
      short: "o",
      value: "<dir>",
      description: "output folder (default <dir>/.agentsvc/build)",
    },
  },
  details:
    "manifest.json holds the resolved project: entries with defaults, environment-variable names and\ntheme tokens; never module code or environment values.",
  async run({ values, positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const out = typeof values.out === "string" ? resolve(io.cwd, values.out) : undefined;
    let result: BuildResult;
    try {
      result = await buildProject(dir, out ? { outDir: out } : {});
    } catch (err) {
      print.err(`${print.style("err", "red", "error")} build step failed: ${(err as Error).message}`);
      return EXIT_FAIL;
    }
    await printIssues(print, result.ok ? [] : result.errors, result.warnings, dir);
    if (!result.ok) return EXIT_FAIL;
    print.out(`${print.style("out", "green", "built")} ${relative(io.cwd, result.outDir) || "."}`);
    return EXIT_OK;
  },
};
