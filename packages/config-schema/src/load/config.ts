// agentsvc.config.*: each top-level key is validated on its own (and each datasource apart), so a
// config with errors in several keys reports all of them, and the checks that read the config
// (the store's datasource, sslCaFile, rootAgent, budgets) still run on the keys that are valid.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import * as v from "valibot";
import { describeValue, type IssueSink } from "../issues.js";
import { DEFAULT_STORE_DURABILITY, projectConfigSchema } from "../schemas/config.js";
import { strict } from "../schemas/common.js";
import { DEFAULT_DATASOURCE } from "../schemas/webui.js";
import type { ProjectConfig } from "../types.js";
import type { FoundFile } from "./files.js";
import { loadAny, type makeModuleLoader } from "./module.js";

export const CONFIG_EXTS = [".ts", ".mts", ".js", ".mjs", ".json", ".yaml", ".yml"] as const;

/**
 * What the config declared but could not be read, so a later check that needs it is skipped rather
 * than reporting a second, wrong error (its own errors are already reported).
 */
export class ConfigGaps {
  /** Top-level keys that had errors (`datasources` here: not a mapping at all). */
  readonly keys = new Set<string>();
  /** Datasources declared with errors. */
  readonly datasources = new Set<string>();

  has(key: keyof ProjectConfig | "store"): boolean {
    return this.keys.has(key);
  }

  /** A datasource name that may have been declared (its entry, or the whole mapping, had errors). */
  datasourceUnread(name: string): boolean {
    return this.keys.has("datasources") || this.datasources.has(name);
  }
}

type Entries = typeof projectConfigSchema.entries;
type Output = { [K in keyof Entries]?: v.InferOutput<Entries[K]> };

const KEYS = Object.keys(projectConfigSchema.entries) as (keyof Entries)[];

// The top-level shape only (a mapping, no unknown key), with the messages of the full schema.
const shapeSchema = strict(
  Object.fromEntries(KEYS.map((k) => [k, v.optional(v.unknown())])) as Record<
    keyof Entries,
    v.OptionalSchema<v.UnknownSchema, undefined>
  >,
  "agentsvc.config",
);

export async function loadConfig(
  root: string,
  loader: ReturnType<typeof makeModuleLoader>,
  sink: IssueSink,
): Promise<{ config: ProjectConfig; configFile: string | undefined; gaps: ConfigGaps }> {
  const found = CONFIG_EXTS.filter((ext) => existsSync(resolve(root, `agentsvc.config${ext}`))).map(
    (ext): FoundFile => ({
      base: "agentsvc.config",
      ext,
      rel: `agentsvc.config${ext}`,
      abs: resolve(root, `agentsvc.config${ext}`),
    }),
  );
  const config: ProjectConfig = {
    datasources: { [DEFAULT_DATASOURCE]: { type: "sqlite" } },
    storeDurability: DEFAULT_STORE_DURABILITY,
  };
  const gaps = new ConfigGaps();
  if (found.length > 1) {
    for (const f of found.slice(1)) {
      sink.error(f.rel, "", "must be the only config file", found.map((x) => x.rel).join(", "));
    }
  }
  const f = found[0];
  if (!f) return { config, configFile: undefined, gaps };
  const loaded = await loadAny(loader, f, sink);
  if (!loaded.ok) {
    for (const k of KEYS) gaps.keys.add(k);
    return { config, configFile: f.rel, gaps };
  }
  // An empty YAML config file is an empty config.
  const out = parseKeys(f.rel, loaded.value ?? {}, gaps, sink);
  if (!out) return { config, configFile: f.rel, gaps };

  if (out.port !== undefined) config.port = out.port;
  if (out.allowedHosts !== undefined) config.allowedHosts = out.allowedHosts;
  if (out.rootAgent !== undefined) config.rootAgent = out.rootAgent;
  if (out.publicBaseUrl !== undefined) config.publicBaseUrl = out.publicBaseUrl;
  if (out.metrics !== undefined) {
    const { path, port, apiKeyEnvVar } = out.metrics;
    config.metrics = {
      path: path ?? "/metrics",
      ...(port !== undefined ? { port } : {}),
      ...(apiKeyEnvVar !== undefined ? { apiKeyEnvVar } : {}),
    };
  }
  if (out.prices !== undefined) config.prices = out.prices;
  if (out.budgets !== undefined) config.budgets = out.budgets;
  config.datasources = { ...config.datasources, ...out.datasources };
  const store = typeof out.store === "string" ? { datasource: out.store } : out.store;
  if (store?.durability) config.storeDurability = store.durability;
  if (store?.datasource !== undefined) {
    if (config.datasources[store.datasource]) config.store = store.datasource;
    else if (!gaps.datasourceUnread(store.datasource))
      sink.error(
        f.rel,
        typeof out.store === "string" ? "store" : "store.datasource",
        `must name a declared datasource (${Object.keys(config.datasources).join(", ")})`,
        store.datasource,
      );
  }
  checkDatasources(root, f.rel, config, sink);
  return { config, configFile: f.rel, gaps };
}

/**
 * Every valid key's output; the invalid ones reported and noted in `gaps`. Undefined when the
 * file's value is not a mapping (nothing in it can be read).
 */
function parseKeys(file: string, raw: unknown, gaps: ConfigGaps, sink: IssueSink): Output | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    sink.error(file, "", "must be a mapping (agentsvc.config)", describeValue(raw));
    for (const k of KEYS) gaps.keys.add(k);
    return undefined;
  }
  const shape = v.safeParse(shapeSchema, raw);
  const input = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    const parsed =
      key === "datasources"
        ? parseDatasources(file, input.datasources, gaps, sink)
        : parseKey(file, key, input[key], sink);
    if (parsed.ok) out[key] = parsed.value;
    else gaps.keys.add(key);
  }
  // Unknown top-level keys: refused as the whole schema refuses them (with the nearest known key).
  if (!shape.success) sink.fromValibot(file, shape.issues);
  return out as Output;
}

function parseKey(
  file: string,
  key: keyof Entries,
  value: unknown,
  sink: IssueSink,
): { ok: true; value: unknown } | { ok: false } {
  const r = v.safeParse(projectConfigSchema.entries[key], value);
  if (r.success) return { ok: true, value: r.output };
  sink.fromValibot(file, r.issues, key);
  return { ok: false };
}

/** Each datasource apart: one with errors does not hide the others (nor their sslCaFile checks). */
function parseDatasources(
  file: string,
  value: unknown,
  gaps: ConfigGaps,
  sink: IssueSink,
): { ok: true; value: unknown } | { ok: false } {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return parseKey(file, "datasources", value, sink);
  const out: Record<string, unknown> = {};
  for (const [name, ds] of Object.entries(value)) {
    const one = parseKey(file, "datasources", { [name]: ds }, sink);
    if (one.ok) Object.assign(out, one.value);
    else gaps.datasources.add(name);
  }
  return { ok: true, value: out };
}

/** What the schema cannot say about a postgres datasource: the CA file and the TLS mode it needs. */
function checkDatasources(root: string, file: string, config: ProjectConfig, sink: IssueSink): void {
  for (const [name, ds] of Object.entries(config.datasources)) {
    if (ds.type !== "postgres" || ds.sslCaFile === undefined) continue;
    const key = `datasources.${name}.sslCaFile`;
    if (ds.ssl !== "verify-full") {
      sink.error(
        file,
        key,
        "is only used with ssl: verify-full (the CA checks the server certificate); set ssl: verify-full or remove sslCaFile",
        `ssl ${ds.ssl === undefined ? "unset" : JSON.stringify(ds.ssl)}`,
      );
      continue;
    }
    // The CA file may be mounted only where the service runs: a warning here, an error at start.
    if (!existsSync(resolve(root, ds.sslCaFile))) {
      sink.warn(
        file,
        key,
        `file ${JSON.stringify(ds.sslCaFile)} does not exist under the project: \`agentsvc start\` fails until it holds the CA certificate (PEM)`,
      );
    }
  }
}
