import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { adapterPackageName } from "@agentsvc/session-core";

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

/** A missing adapter package's error, naming the install command of this project's package manager. */
export function adapterLoadError(error: Error & { code?: string }, type: string, root: string): Error {
  if (error.code !== "adapter_not_installed") return error;
  const pkg = adapterPackageName(type);
  return Object.assign(
    new Error(
      `gateway type "${type}" needs the package ${pkg}, which is not installed in ${root}. Install it: ${installCommand(root, pkg)}`,
    ),
    { code: error.code },
  );
}
