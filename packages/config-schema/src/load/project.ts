import { existsSync, statSync } from "node:fs";
import { normalize, resolve } from "node:path";
import * as v from "valibot";
import { IssueSink } from "../issues.js";
import { agentDefinitionSchema } from "../schemas/agent.js";
import type {
  AgentEntry,
  ChannelEntry,
  Exposure,
  LoadResult,
  ProjectConfig,
  PushGatewayEntry,
  WebuiExposure,
} from "../types.js";
import { type ConfigGaps, loadConfig } from "./config.js";
import { DATA_EXTS, listFolder, MODULE_EXTS, reportDuplicateNames } from "./files.js";
import { isAdapterPackageName } from "../adapter/package-name.js";
import { PUSH_TYPES } from "./adapters.js";
import { GATEWAY_TYPES, pushAdapterOf, validateGatewayEntry } from "./gateway-entry.js";
import { checkGatewayName } from "./gateway-name.js";
import { loadAny, makeModuleLoader } from "./module.js";
import { type BrokenGateway, loadSchedules } from "./schedules.js";
import { readThemeFile } from "./theme-file.js";
import { loadToolServers, type ToolServerRefs } from "./tool-servers.js";
import { openYamlCache } from "./yaml-cache.js";

type Loader = ReturnType<typeof makeModuleLoader>;

export interface LoadOptions {
  /**
   * Reads the YAML files' data as the last load with this option parsed them, when their text is
   * the same; the result's `saveYamlCache()` keeps this load's in `.agentsvc/yaml-cache.json`
   * (`start`, once it is serving; yaml-cache.ts).
   */
  yamlCache?: boolean;
}

/**
 * Loads and validates a project folder. Never throws for a problem in the project: every error found
 * (not just the first) comes back in `errors`, each naming the file and key path.
 */
export async function loadProject(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const root = resolve(dir);
  const sink = new IssueSink();
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    sink.error(dir, "", "must be a project folder", "no such folder");
    return { ok: false, errors: sink.errors, warnings: sink.warnings };
  }
  const loader = makeModuleLoader(root, options.yamlCache ? openYamlCache(root) : undefined);

  const { config, configFile, gaps } = await loadConfig(root, loader, sink);
  const { toolServers, refs } = await loadToolServers(root, loader, sink);
  const { agents, fileNames } = await loadAgents(root, loader, sink, refs);
  const rootAgent = pickRootAgent(agents, fileNames, config, configFile, gaps, sink);
  const { exposures, channels, pushGateways, broken } = await loadGateways(
    root,
    loader,
    sink,
    config,
    gaps,
    refs,
  );
  const schedules = await loadSchedules(root, loader, sink, {
    agents,
    rootAgent,
    agentFiles: fileNames,
    pushGateways,
    exposures,
    broken,
  });
  if (configFile) checkSpend(configFile, config, gaps, pushGateways, broken, fileNames, sink);

  if (sink.errors.length || !rootAgent) return { ok: false, errors: sink.errors, warnings: sink.warnings };
  const project = {
    root,
    config,
    agents,
    rootAgent,
    toolServers,
    exposures,
    channels,
    pushGateways,
    schedules,
  };
  return {
    ok: true,
    project: configFile ? { ...project, configFile } : project,
    warnings: sink.warnings,
    saveYamlCache: () => loader.yamlCache?.save(),
  };
}

async function loadAgents(
  root: string,
  loader: Loader,
  sink: IssueSink,
  servers: ToolServerRefs,
): Promise<{ agents: AgentEntry[]; fileNames: string[] }> {
  const files = listFolder(root, "agents", MODULE_EXTS, sink);
  const dupes = reportDuplicateNames(files, "agent file", sink);
  const out: AgentEntry[] = [];
  for (const f of files) {
    const loaded = await loadAny(loader, f, sink);
    if (!loaded.ok) continue;
    const r = v.safeParse(agentDefinitionSchema, loaded.value);
    if (!r.success) sink.fromValibot(f.rel, r.issues);
    // Local tool servers are referenced by their declared name (checked too when other keys have errors).
    const refs = r.success ? (r.output.toolServers ?? []) : validRefs(loaded.value, r.issues);
    refs.forEach((ref, i) => {
      if (typeof ref === "string")
        servers.check(f.rel, `toolServers[${i}]`, ref, "must name a tool server declared under mcp/");
    });
    if (!r.success) continue;
    if (dupes.has(f.base) && out.some((a) => a.name === f.base)) continue;
    const gs = r.output.gatewaySession;
    const entry: AgentEntry = {
      name: f.base,
      declaredName: r.output.name,
      file: f.rel,
      definition: loaded.value,
      gatewaySession: { policy: gs.policy, maxQueueDepth: gs.maxQueueDepth },
    };
    if (gs.busyReply !== undefined) entry.gatewaySession.busyReply = gs.busyReply;
    if (r.output.memory) entry.memory = r.output.memory;
    out.push(entry);
  }
  return { agents: out, fileNames: files.map((f) => f.base) };
}

/** An agent's `toolServers` list when that key has no errors of its own (another key has). */
function validRefs(raw: unknown, issues: readonly v.BaseIssue<unknown>[]): unknown[] {
  const own = issues.some((i) => (i.path?.[0] as { key?: unknown } | undefined)?.key === "toolServers");
  const refs = (raw as { toolServers?: unknown } | null)?.toolServers;
  return !own && Array.isArray(refs) ? refs : [];
}

function pickRootAgent(
  agents: AgentEntry[],
  fileNames: string[],
  config: ProjectConfig,
  configFile: string | undefined,
  gaps: ConfigGaps,
  sink: IssueSink,
): AgentEntry | undefined {
  const names = [...new Set(fileNames)].join(", ");
  if (config.rootAgent !== undefined) {
    const hit = agents.find((a) => a.name === config.rootAgent);
    // An agent file that exists but failed validation already has its own errors.
    if (!hit && !fileNames.includes(config.rootAgent)) {
      sink.error(
        configFile ?? "agentsvc.config",
        "rootAgent",
        `must name an agent file under agents/ (found: ${names || "none"})`,
        JSON.stringify(config.rootAgent),
      );
    }
    return hit;
  }
  if (fileNames.length === 1) return agents[0];
  if (fileNames.length === 0) {
    sink.error(
      "agents/",
      "",
      "must hold at least one agent module (agents/<name>.ts with defineAgent)",
      "none",
    );
    return undefined;
  }
  // A rootAgent with errors of its own is not reported a second time as missing.
  if (gaps.has("rootAgent")) return undefined;
  sink.error(
    configFile ?? "agentsvc.config",
    "rootAgent",
    "is required when agents/ holds more than one agent",
    `agents ${names}`,
  );
  return undefined;
}

async function loadGateways(
  root: string,
  loader: Loader,
  sink: IssueSink,
  config: ProjectConfig,
  gaps: ConfigGaps,
  servers: ToolServerRefs,
) {
  const files = listFolder(root, "gateways", [...DATA_EXTS, ...MODULE_EXTS], sink);
  reportDuplicateNames(files, "gateway entry", sink);
  const exposures: Exposure[] = [];
  const channels: ChannelEntry[] = [];
  const pushByType = new Map<string, PushGatewayEntry>();
  const pathOwner = new Map<string, string>();
  const datasourceNames = Object.keys(config.datasources);
  // Entries that failed their own validation: a schedule or budget naming one is not told it is undeclared.
  const broken: BrokenGateway[] = [];

  for (const f of files) {
    checkGatewayName(f, sink); // the entry's own keys are still checked: every error at once
    const loaded = await loadAny(loader, f, sink);
    if (!loaded.ok) {
      broken.push({ entryName: f.base, file: f.rel });
      continue;
    }
    checkPathUnique(loaded.value, f.rel, pathOwner, sink);
    const valid = await validateGatewayEntry(loaded.value, f.rel, f.base, sink, root);
    if (!valid) {
      const declared = rawType(loaded.value);
      broken.push({ entryName: f.base, file: f.rel, ...declared, ...(await knownAdapter(declared, root)) });
      continue;
    }
    if (valid.kind === "channel") {
      channels.push(valid.entry);
      continue;
    }
    if (valid.kind === "push") {
      const prev = pushByType.get(valid.entry.type);
      if (prev) {
        sink.warn(
          f.rel,
          "type",
          `two ${valid.entry.type} entries (${prev.file} and ${f.rel}); one instance per push-style type is the ceiling, so ${f.rel} overwrites ${prev.file} at registration`,
        );
      }
      pushByType.set(valid.entry.type, valid.entry);
      continue;
    }
    const e = valid.entry;
    // A tool server with errors of its own (reported for its file) is not undeclared.
    if (e.exposes === "mcp")
      servers.check(f.rel, "target", e.target, "must equal the declared name of a tool server under mcp/");
    if (e.exposes === "webui") checkWebui(root, e, valid.themeFileExplicit, datasourceNames, gaps, sink);
    exposures.push(e);
  }
  checkAccountStores(exposures, sink);
  const pushGateways = [...pushByType.values()];
  checkReservedUsernames(exposures, channels, pushGateways, sink);
  checkSharedMemoryUsers(exposures, channels, pushGateways, sink);
  return { exposures, channels, pushGateways, broken };
}

/**
 * A broken push entry's adapter, when its `type` is accepted: a schedule naming the entry still has
 * its platform keys checked against that adapter. A built-in type whose package is not installed
 * counts too (by its type), as its valid entry does: other platforms' keys are reported.
 */
async function knownAdapter(
  declared: { type?: string; exposes?: string },
  root: string,
): Promise<Pick<BrokenGateway, "adapter">> {
  const { type, exposes } = declared;
  if (type === undefined || exposes !== undefined) return {};
  if (!(PUSH_TYPES as readonly string[]).includes(type) && !isAdapterPackageName(type)) return {};
  const found = await pushAdapterOf(type, root);
  if (!found.ok) return found.missing ? { adapter: { type } } : {};
  const named = isAdapterPackageName(type) ? { package: found.pkg } : {};
  return { adapter: { type: found.module.adapter.type, ...named } };
}

/** The `type` or `exposes` a broken entry declares, when it is a string (what a schedule may name it by). */
function rawType(raw: unknown): { type?: string; exposes?: string } {
  if (raw === null || typeof raw !== "object") return {};
  const { type, exposes } = raw as { type?: unknown; exposes?: unknown };
  return {
    ...(typeof type === "string" ? { type } : {}),
    ...(typeof exposes === "string" ? { exposes } : {}),
  };
}

/**
 * A username is a memory scope (`userId`). Gateways scope their memory by the gateway type (push-style)
 * or entry name (channel adapters), the agent route by `anonymous`, open webui entries by `shared:…`:
 * an account with one of those names would read and continue those conversations.
 */
function checkReservedUsernames(
  exposures: Exposure[],
  channels: ChannelEntry[],
  pushGateways: PushGatewayEntry[],
  sink: IssueSink,
): void {
  const reserved = new Map<string, string>([
    ["anonymous", "the agent route's caller"],
    ["shared", "the open workspace"],
    ...GATEWAY_TYPES.map((t): [string, string] => [t, `the ${t} gateway`]),
    // A third-party adapter's registry name is a memory scope too.
    ...pushGateways.map((g): [string, string] => [g.type, `the ${g.type} gateway`]),
    ...channels.map((c): [string, string] => [c.entryName, `the channel adapter ${c.file}`]),
  ]);
  for (const e of exposures) {
    if (e.exposes !== "webui") continue;
    (e.users ?? []).forEach((u, i) => {
      const clash = reserved.get(u.username);
      if (clash || u.username.includes(":")) {
        sink.error(
          e.file,
          `users[${i}].username`,
          clash
            ? `is reserved: it is the memory scope of ${clash}`
            : 'must not contain ":" (reserved for built-in scopes)',
          JSON.stringify(u.username),
        );
      }
    });
  }
}

/**
 * Memory, runs and approvals are keyed by user id alone (one RunManager for the project), so two
 * entries whose runs get the same user id read and continue each other's conversations. A channel
 * adapter runs as its entry name, every agent route caller as `anonymous`, a push gateway as its
 * type and a page's signed-in account as its username: such pairs are refused, naming both.
 */
function checkSharedMemoryUsers(
  exposures: Exposure[],
  channels: ChannelEntry[],
  pushGateways: PushGatewayEntry[],
  sink: IssueSink,
): void {
  const routes = exposures.filter((e) => e.exposes === "agent").map((e) => e.file);
  for (const c of channels) {
    const push = pushGateways.find((g) => g.type === c.entryName);
    const other =
      c.entryName === "anonymous"
        ? `the agent route's callers${routes.length > 0 ? ` (${routes.join(", ")})` : ""}`
        : push && `the ${push.type} gateway (${push.file})`;
    if (other)
      sink.error(
        c.file,
        "",
        `the entry name is the user id of ${other}: the two would read and continue each other's conversations (memory and runs are keyed by user id alone); rename the file`,
        JSON.stringify(c.entryName),
      );
  }
  const accounts = new Map<string, string>();
  for (const e of exposures) {
    if (e.exposes !== "webui") continue;
    (e.users ?? []).forEach((u, i) => {
      const first = accounts.get(u.username);
      if (first === undefined) accounts.set(u.username, `${e.file} (users[${i}])`);
      else if (!first.startsWith(`${e.file} `))
        sink.error(
          e.file,
          `users[${i}].username`,
          `is also an account of ${first}: the two accounts are one user (user id = username) and share conversations, runs and approvals across the two pages; give one another username`,
          JSON.stringify(u.username),
        );
    });
  }
}

/**
 * Accounts live in the entry's store and the boot seeder deactivates every account its entry does
 * not declare, so two entries with `users` on one store file would switch each other's accounts off.
 */
function checkAccountStores(exposures: Exposure[], sink: IssueSink): void {
  const owner = new Map<string, string>();
  for (const e of exposures) {
    if (e.exposes !== "webui" || e.users === undefined) continue;
    const key = `${e.database.datasource}:${normalize(e.database.path)}`;
    const first = owner.get(key);
    if (first) {
      sink.error(
        e.file,
        "database.path",
        `entries with users need a store of their own (also used by ${first}, which declares users too)`,
        JSON.stringify(e.database.path),
      );
    } else owner.set(key, e.file);
  }
}

/**
 * Path uniqueness is checked on the raw entry, so a clash is reported even when one of the two
 * entries has other errors.
 */
function checkPathUnique(raw: unknown, file: string, pathOwner: Map<string, string>, sink: IssueSink): void {
  if (raw === null || typeof raw !== "object" || !("exposes" in raw) || !("path" in raw)) return;
  if (typeof raw.path !== "string" || !raw.path.startsWith("/")) return;
  const path = raw.path.length > 1 ? raw.path.replace(/\/+$/, "") || "/" : raw.path;
  const owner = pathOwner.get(path);
  if (owner) {
    sink.error(
      file,
      "path",
      `must be unique across exposure entries (also used by ${owner})`,
      JSON.stringify(path),
    );
  } else pathOwner.set(path, file);
}

function checkWebui(
  root: string,
  e: WebuiExposure,
  themeFileExplicit: boolean,
  datasourceNames: string[],
  gaps: ConfigGaps,
  sink: IssueSink,
): void {
  // A datasource declared with errors already has its own.
  if (!datasourceNames.includes(e.database.datasource) && !gaps.datasourceUnread(e.database.datasource)) {
    sink.error(
      e.file,
      "database.datasource",
      `must name a declared datasource (declared: ${datasourceNames.join(", ")})`,
      JSON.stringify(e.database.datasource),
    );
  }
  const seen = new Set<string>();
  (e.users ?? []).forEach((u, i) => {
    if (seen.has(u.username)) {
      sink.error(
        e.file,
        `users[${i}].username`,
        "must be unique within the entry",
        JSON.stringify(u.username),
      );
    }
    seen.add(u.username);
  });
  const css = readThemeFile(root, e.themeFile, themeFileExplicit, e.file, sink);
  if (css !== undefined) e.themeCss = css;
}

/** Budgets that name nothing, and cost limits nothing can reach, are warnings (the config still loads). */
function checkSpend(
  file: string,
  config: ProjectConfig,
  gaps: ConfigGaps,
  pushGateways: { entryName: string }[],
  broken: BrokenGateway[],
  agentFiles: string[],
  sink: IssueSink,
): void {
  const budgets = config.budgets;
  if (!budgets) return;
  const gateways = new Set(pushGateways.map((g) => g.entryName));
  // An entry or agent file with errors of its own may well be what the budget names.
  const brokenNames = new Set(broken.map((g) => g.entryName));
  for (const name of Object.keys(budgets.gateways ?? {}))
    if (!gateways.has(name) && !brokenNames.has(name))
      sink.warn(
        file,
        `budgets.gateways.${name}`,
        `names no push gateway entry (${[...gateways].join(", ") || "none"}): it limits nothing`,
      );
  const agentNames = new Set(agentFiles);
  for (const name of Object.keys(budgets.agents ?? {}))
    if (!agentNames.has(name))
      sink.warn(
        file,
        `budgets.agents.${name}`,
        `names no agent (${[...agentNames].join(", ")}): it limits nothing`,
      );
  const limits = [
    budgets.service,
    budgets.perUser,
    budgets.perGateway,
    budgets.perAgent,
    ...Object.values(budgets.gateways ?? {}),
    ...Object.values(budgets.agents ?? {}),
  ];
  const costLimit = limits.some((l) => l?.day?.cost !== undefined || l?.month?.cost !== undefined);
  if (costLimit && !gaps.has("prices") && Object.keys(config.prices ?? {}).length === 0)
    sink.warn(
      file,
      "budgets",
      "has cost limits but prices is empty: every call costs 0, so no cost limit is ever reached; add prices per million tokens",
    );
}
