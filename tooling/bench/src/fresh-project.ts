import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * A copy of one bench project (`tooling/bench/<name>`) under tooling/bench/.runs, so a durable store
 * starts empty on every run and the agent file still resolves its packages from the bench folder.
 * `tree`: place it under that (older, built) worktree's bench folder instead, so the agent file
 * resolves that tree's packages.
 */
export function freshProject(name: string, tree?: string): { dir: string; remove(): void } {
  const ours = resolve(import.meta.dirname, "..");
  const bench = tree ? join(tree, "tooling/bench") : ours;
  mkdirSync(join(bench, ".runs"), { recursive: true });
  const dir = mkdtempSync(join(bench, `.runs/${name}-`));
  cpSync(join(ours, name), dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
