// Loads a gateway adapter package on demand, only when an entry of its type exists.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { AgentsvcError } from "@agentsvc/agent-core";
import {
  adapterPackageOf,
  installedManifest,
  isAdapterPackageName,
  isRegistryName,
  MOCK_ADAPTER,
} from "@agentsvc/config-schema/adapter";

/**
 * `telegram` -> `@agentsvc/gateway-telegram`; `mock` lives in `@agentsvc/session-core/mock` (not
 * `/testing`, whose contract suite imports vitest: outside a vitest run that import fails, so a
 * served project could not start); a package name (`@acme/agentsvc-gateway-line`) is itself (the
 * adapter contract's naming rule).
 */
export function adapterPackageName(type: string): string {
  if (!isAdapterPackageName(type) && !isRegistryName(type)) {
    throw new AgentsvcError(
      "bad_gateway_type",
      `gateway type must be lower-case letters, digits and dashes (got "${type}")`,
    );
  }
  return type === "mock" ? MOCK_ADAPTER.module : adapterPackageOf(type);
}

export interface LoadAdapterOptions {
  /** Directory the package is resolved from (the app root, where it would be installed). Default `process.cwd()`. */
  from?: string;
}

/**
 * Imports the adapter package of `type`, resolved from the app root. When it is not installed,
 * throws AgentsvcError `adapter_not_installed` naming the install command.
 */
export async function loadAdapterPackage(
  type: string,
  options: LoadAdapterOptions = {},
): Promise<Record<string, unknown>> {
  const pkg = adapterPackageName(type);
  const from = options.from ?? process.cwd();
  const require = createRequire(join(from, "package.json"));
  let resolved: string;
  try {
    // Installed means in the app's own node_modules chain: NODE_PATH (which pnpm sets to its whole
    // store when it runs a script) and global folders do not count.
    if (!installedUnder(from, pkg))
      throw Object.assign(new Error(`${pkg} not found`), { code: "MODULE_NOT_FOUND" });
    resolved = require.resolve(pkg);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") {
      throw new AgentsvcError(
        "adapter_not_installed",
        `gateway type "${type}" needs the package ${pkg}, which is not installed in ${from}. Install it: pnpm add ${packageOf(pkg)}`,
        500,
      );
    }
    throw err;
  }
  return (await import(pathToFileURL(resolved).href)) as Record<string, unknown>;
}

/** Is the adapter package of `type` installed in the app at `from` (as loadAdapterPackage finds it)? */
export function adapterInstalled(type: string, from: string): boolean {
  return installedUnder(from, adapterPackageName(type));
}

/** The package a specifier names: `@agentsvc/session-core/mock` is in `@agentsvc/session-core`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return parts.slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
}

function installedUnder(from: string, specifier: string): boolean {
  return installedManifest(from, packageOf(specifier)) !== undefined;
}
