// Provider packages load on first use. agentsvc ships openai, anthropic and openai-compatible;
// every other provider's package is installed in the project, like a gateway adapter.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { AgentsvcError } from "../errors.js";

// Their builds are ES modules; require() of one is synchronous (Node >= 22.12), so creating a
// model stays synchronous and a project on the demo model never loads a provider or its zod.
// Resolved from this package's own entry, not from this file: the agentsvc command bundles this
// code into @agentsvc/cli's files, whose node_modules do not hold agent-core's dependencies.
let own: NodeJS.Require | undefined;
const ownRequire = () => {
  own ??= createRequire(createRequire(import.meta.url).resolve("@agentsvc/agent-core"));
  return own;
};

/** Is `pkg` in the node_modules chain of `root` (NODE_PATH and global folders do not count)? */
export function providerPackageInstalled(pkg: string, root: string): boolean {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

export interface LoadProviderOptions {
  /** Where optional provider packages are installed (the project root). Default `process.cwd()`. */
  root?: string;
  /** The command that installs a package in that project. Default `npm install <pkg>`. */
  installCommand?: (pkg: string) => string;
}

/** The provider module: the bundled ones from agent-core itself, the others from the project root. */
export function loadProviderPackage(
  pkg: string,
  bundled: boolean,
  forModel: string,
  options: LoadProviderOptions,
): Record<string, unknown> {
  if (bundled) return ownRequire()(pkg) as Record<string, unknown>;
  const root = options.root ?? process.cwd();
  if (!providerPackageInstalled(pkg, root)) {
    const install = options.installCommand?.(pkg) ?? `npm install ${pkg}`;
    throw new AgentsvcError(
      "provider_not_installed",
      `model "${forModel}" needs the package ${pkg}, which is not installed in ${root}. Install it: ${install}`,
      500,
    );
  }
  return createRequire(join(resolve(root), "package.json"))(pkg) as Record<string, unknown>;
}
