// Whether a package is installed for a project, as both `check` (config-schema) and `start`
// (session-core's loader) decide it: in the project's node_modules chain only (NODE_PATH, which
// pnpm sets to its whole store when it runs a script, and global folders do not count), or the
// project is the package itself (its own tests resolve their name by self-reference).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The fields of an installed package.json agentsvc reads. */
export interface InstalledManifest {
  name?: string;
  exports?: unknown;
}

/** The package.json of `pkg` as installed for the project at `from`, or undefined when it is not. */
export function installedManifest(from: string, pkg: string): InstalledManifest | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const installed = readManifest(join(dir, "node_modules", pkg));
    if (installed) return installed;
    const own = readManifest(dir);
    if (own?.name === pkg) return own;
    if (dirname(dir) === dir) return undefined;
  }
}

function readManifest(dir: string): InstalledManifest | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as InstalledManifest;
  } catch {
    return undefined;
  }
}
