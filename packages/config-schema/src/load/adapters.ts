// Finds the adapter package of a gateway entry's `type` in the project (issue #42): built-in types by
// their `@agentsvc/gateway-<type>` name, third-party adapters by their own package name. Resolved
// from the project root, as `agentsvc start` loads them, so what check accepts is what start runs.
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type {
  AdapterDoctor,
  AdapterEntrySchema,
  AdapterInfo,
  AdapterScheduleTarget,
} from "../adapter/contract.js";
import { type InstalledManifest, installedManifest } from "../adapter/installed.js";
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

/**
 * What validation and doctor read of an adapter: from its light `./adapter` entry when the package
 * exports one (metadata, schema, doctor; no gateway code), else from its main entry. `createGateway`
 * is only start's business (session-core loads the main entry).
 */
export interface AdapterModule {
  adapter: AdapterInfo;
  entrySchema: AdapterEntrySchema;
  doctor?: AdapterDoctor;
  scheduleTarget?: AdapterScheduleTarget;
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

/** Is the adapter package of `type` installed under `root` (as findAdapter and start look for it)? */
export function adapterInstalled(type: string, root: string): boolean {
  return installedManifest(root, adapterPackageOf(type)) !== undefined;
}

/** The subpath of the light entry (docs/building-an-adapter.md, section 2). */
const LIGHT_ENTRY = "./adapter";

async function load(pkg: string, root: string): Promise<FoundAdapter> {
  const manifest = installedManifest(root, pkg);
  if (!manifest) return { found: "missing", pkg };
  // Only a subpath the package declares: a file that happens to be called adapter.js is not one.
  const light = declaresSubpath(manifest, LIGHT_ENTRY);
  let mod: Record<string, unknown>;
  try {
    const specifier = light ? `${pkg}/${LIGHT_ENTRY.slice(2)}` : pkg;
    const file = createRequire(join(resolve(root), "package.json")).resolve(specifier);
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    return {
      found: "invalid",
      pkg,
      message: `the package ${pkg} failed to load: ${(error as Error).message}`,
    };
  }
  const problem = contractProblem(mod, !light);
  if (problem)
    return { found: "invalid", pkg, message: `the package ${pkg} is not an agentsvc adapter: ${problem}` };
  return { found: "loaded", pkg, module: mod as unknown as AdapterModule };
}

/**
 * What is wrong with a module's exports as an adapter (docs/building-an-adapter.md), or undefined.
 * The light entry may leave `createGateway` to the main entry.
 */
function contractProblem(mod: Record<string, unknown>, needsFactory: boolean): string | undefined {
  const info = mod.adapter as Partial<AdapterInfo> | undefined;
  if (!info || typeof info !== "object") return "it exports no `adapter` metadata";
  if (typeof info.type !== "string" || !isRegistryName(info.type))
    return "`adapter.type` must be lower-case letters, digits and dashes";
  if (!["push", "connection", "webhook"].includes(String(info.kind)))
    return "`adapter.kind` must be push, connection or webhook";
  if (!Array.isArray(info.secrets)) return "`adapter.secrets` must be a list of entry keys";
  if (!mod.entrySchema || typeof mod.entrySchema !== "object") return "it exports no `entrySchema`";
  if (needsFactory && typeof mod.createGateway !== "function")
    return "it exports no `createGateway` function";
  if (mod.doctor !== undefined && typeof mod.doctor !== "function") return "`doctor` must be a function";
  if (info.unsupportedMedia !== undefined && !["reply", "ignore"].includes(info.unsupportedMedia))
    return "`adapter.unsupportedMedia` must be reply or ignore";
  const target = mod.scheduleTarget as Partial<AdapterScheduleTarget> | undefined;
  if (target !== undefined && (typeof target.entries !== "object" || typeof target.read !== "function"))
    return "`scheduleTarget` must hold `entries` and a `read` function";
  return undefined;
}

/** Does the package's `exports` map name `subpath`? */
function declaresSubpath(manifest: InstalledManifest, subpath: string): boolean {
  const { exports } = manifest;
  return !!exports && typeof exports === "object" && !Array.isArray(exports) && subpath in exports;
}
