import { existsSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import type { IssueSink } from "../issues.js";

export const MODULE_EXTS = [".ts", ".mts", ".js", ".mjs"] as const;
export const DATA_EXTS = [".yaml", ".yml", ".json"] as const;

export interface FoundFile {
  /** File name without extension. */
  base: string;
  ext: string;
  /** Relative to the project root, `/`-separated. */
  rel: string;
  abs: string;
}

/**
 * Files of one project folder with an accepted extension, sorted by name. Other files are noted with
 * a warning (they are easy to mistake for entries); dotfiles and `.d.ts` files are skipped quietly.
 */
export function listFolder(
  root: string,
  folder: string,
  exts: readonly string[],
  sink: IssueSink,
): FoundFile[] {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  const found: FoundFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name.endsWith(".d.ts")) continue;
    const abs = join(dir, name);
    const rel = `${folder}/${name}`;
    if (statSync(abs).isDirectory()) {
      sink.warn(rel, undefined, `subfolders of ${folder}/ are not read (expected files ${exts.join(", ")})`);
      continue;
    }
    const ext = extname(name);
    if (!exts.includes(ext)) {
      sink.warn(
        rel,
        undefined,
        `ignored: ${folder}/ entries end in ${exts.join(", ")} (got "${ext || name}")`,
      );
      continue;
    }
    found.push({ base: name.slice(0, -ext.length), ext, rel, abs });
  }
  return found;
}

/** Groups files by base name and reports every name used by more than one file. */
export function reportDuplicateNames(files: FoundFile[], what: string, sink: IssueSink): Set<string> {
  const byBase = new Map<string, FoundFile[]>();
  for (const f of files) byBase.set(f.base, [...(byBase.get(f.base) ?? []), f]);
  const dupes = new Set<string>();
  for (const [base, group] of byBase) {
    if (group.length < 2) continue;
    dupes.add(base);
    const list = group.map((f) => f.rel).join(", ");
    for (const f of group.slice(1)) {
      sink.error(f.rel, "", `duplicate ${what} name "${base}": must be unique`, list);
    }
  }
  return dupes;
}
