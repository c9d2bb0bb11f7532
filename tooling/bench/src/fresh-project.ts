import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * A copy of one bench project (`tooling/bench/<name>`) under tooling/bench/.runs, so a durable store
 * starts empty on every run and the agent file still resolves its packages from the bench folder.
 */
export function freshProject(name: string): { dir: string; remove(): void } {
  const bench = resolve(import.meta.dirname, "..");
  mkdirSync(join(bench, ".runs"), { recursive: true });
  const dir = mkdtempSync(join(bench, `.runs/${name}-`));
  cpSync(join(bench, name), dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
