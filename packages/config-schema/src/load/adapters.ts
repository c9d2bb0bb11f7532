// Finds the adapter package of a gateway entry's `type` in the project (issue #42): built-in types by
// their `@agentsvc/gateway-<type>` name, third-party adapters by their own package name. Resolved
// from the project root, as `agentsvc start` loads them, so what check accepts is what start runs.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AdapterDoctor, AdapterEntrySchema, AdapterInfo } from "../adapter/contract.js";
import { adapterPackageOf, isRegistryName } from "../adapter/package-name.js";

/** The official adapters' types (each `@agentsvc/gateway-<type>`); only their names live here. */
export const PUSH_TYPES = [
  "telegram",
  "slack",
  "discord",
  "email",
  "whatsapp",
  "teams",
  "twilio",
  "github",
  "signal",
  "matrix",
  "mattermost",
] as const;

export interface AdapterModule {
  adapter: AdapterInfo;
  entrySchema: AdapterEntrySchema;
  doctor?: AdapterDoctor;
  createGateway: unknown;
}

export type FoundAdapter =
  | { found: "loaded"; pkg: string; module: AdapterModule }
  /** Not installed in the project (nothing to validate the platform keys with). */
  | { found: "missing"; pkg: string }
  /** Installed but not an agentsvc adapter, or its metadata is refused. */
  | { found: "invalid"; pkg: string; message: string };

/**
 * The adapter package of `type` as installed under `root` (its node_modules chain; NODE_PATH and
 * global folders do not count), imported and its exports checked.
 */
export async function findAdapter(type: string, root: string): Promise<FoundAdapter> {
  const pkg = adapterPackageOf(type);
  const key = `${resolve(root)}\0${pkg}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const found = await load(pkg, root);
  // Only a loaded adapter is kept: one installed later (dev's reload) is found on the next load.
  if (found.found === "loaded") cache.set(key, found);
  return found;
}

const cache = new Map<string, FoundAdapter>();

async function load(pkg: string, root: string): Promise<FoundAdapter> {
  if (!installedUnder(root, pkg)) return { found: "missing", pkg };
  let mod: Record<string, unknown>;
  try {
    const file = createRequire(join(resolve(root), "package.json")).resolve(pkg);
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    return {
      found: "invalid",
      pkg,
      message: `the package ${pkg} failed to load: ${(error as Error).message}`,
    };
  }
  const problem = contractProblem(mod);
  if (problem)
    return { found: "invalid", pkg, message: `the package ${pkg} is not an agentsvc adapter: ${problem}` };
  return { found: "loaded", pkg, module: mod as unknown as AdapterModule };
}

/** What is wrong with a module's exports as an adapter (docs/building-an-adapter.md), or undefined. */
function contractProblem(mod: Record<string, unknown>): string | undefined {
  const info = mod.adapter as Partial<AdapterInfo> | undefined;
  if (!info || typeof info !== "object") return "it exports no `adapter` metadata";
  if (typeof info.type !== "string" || !isRegistryName(info.type))
    return "`adapter.type` must be lower-case letters, digits and dashes";
  if (!["push", "connection", "webhook"].includes(String(info.kind)))
    return "`adapter.kind` must be push, connection or webhook";
  if (!Array.isArray(info.secrets)) return "`adapter.secrets` must be a list of entry keys";
  if (!mod.entrySchema || typeof mod.entrySchema !== "object") return "it exports no `entrySchema`";
  if (typeof mod.createGateway !== "function") return "it exports no `createGateway` function";
  if (mod.doctor !== undefined && typeof mod.doctor !== "function") return "`doctor` must be a function";
  return undefined;
}

function installedUnder(from: string, pkg: string): boolean {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return true;
    // Inside the package itself (its own tests): Node resolves the name by self-reference.
    if (packageNameAt(dir) === pkg) return true;
    if (dirname(dir) === dir) return false;
  }
}

function packageNameAt(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name;
  } catch {
    return undefined;
  }
}
