// Which adapter packages a project's gateway entries need and lacks, and the command that installs
// them with the project's own package manager: what `check` names without loading the server, and
// what `start` says when an adapter is missing.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { installedManifest } from "../adapter/installed.js";
import { adapterPackageOf, MOCK_ADAPTER } from "../adapter/package-name.js";
import type { Project } from "../types.js";
import { adapterInstalled } from "./adapters.js";

// Nearest lockfile wins: a project inside a workspace is installed by the workspace's manager.
const LOCKFILES: [file: string, add: string][] = [
  ["pnpm-lock.yaml", "pnpm add"],
  ["yarn.lock", "yarn add"],
  ["bun.lock", "bun add"],
  ["bun.lockb", "bun add"],
  ["package-lock.json", "npm install"],
];

/** The command that adds `pkg` to the project at `root`, for the package manager it uses (default npm). */
export function installCommand(root: string, pkg: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    for (const [file, add] of LOCKFILES) if (existsSync(join(dir, file))) return `${add} ${pkg}`;
    if (dirname(dir) === dir) return `npm install ${pkg}`;
  }
}

export interface MissingAdapters {
  /** One per gateway entry whose adapter package is not installed, in file order. */
  entries: { file: string; type: string; pkg: string }[];
  /** The one command that installs every missing package (undefined when none is missing). */
  install?: string;
}

/**
 * Every adapter package the project's gateway entries need and the app lacks, so `check` can name
 * them all at once where `start` stops at the first. `cli` ships with the server.
 */
export function missingAdapters(project: Project): MissingAdapters {
  const entries: MissingAdapters["entries"] = [];
  for (const entry of [...project.channels, ...project.pushGateways]) {
    if (entry.type === "cli") continue;
    if (entry.type === "mock") {
      // The app has it only when it installs session-core itself: the server's copy is not in the
      // app's node_modules chain under pnpm, and start looks only there.
      if (!installedManifest(project.root, MOCK_ADAPTER.pkg))
        entries.push({ file: entry.file, type: entry.type, pkg: MOCK_ADAPTER.pkg });
      continue;
    }
    const type = ("package" in entry && typeof entry.package === "string" && entry.package) || entry.type;
    if (adapterInstalled(type, project.root)) continue;
    entries.push({ file: entry.file, type, pkg: adapterPackageOf(type) });
  }
  entries.sort((a, b) => a.file.localeCompare(b.file));
  const packages = [...new Set(entries.map((e) => e.pkg))];
  return packages.length
    ? { entries, install: installCommand(project.root, packages.join(" ")) }
    : { entries };
}
