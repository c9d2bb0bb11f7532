import type { Project } from "@agentsvc/config-schema";
import { CLI_VERSION } from "./version.js";

export const MANIFEST_VERSION = 1;

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

/** Only the declarative parts of a model spec; demo scripts and any other keys stay out. */
function modelOf(def: Obj): Obj {
  const model = isObj(def.model) ? def.model : {};
  const out: Obj = { provider: model.provider };
  for (const k of ["model", "baseURL", "apiKeyEnvVar", "name"])
    if (typeof model[k] === "string") out[k] = model[k];
  return out;
}

function toolNames(list: unknown): string[] {
  return Array.isArray(list)
    ? list.flatMap((t) => (isObj(t) && typeof t.name === "string" ? [t.name] : []))
    : [];
}

// Remote tool-server headers may hold credentials: only their names are kept.
function toolServerRefs(list: unknown): unknown[] {
  if (!Array.isArray(list)) return [];
  return list.map((ref) => {
    if (!isObj(ref)) return ref;
    const out: Obj = { url: ref.url };
    if (typeof ref.apiKeyEnvVar === "string") out.apiKeyEnvVar = ref.apiKeyEnvVar;
    if (isObj(ref.headers)) out.headerNames = Object.keys(ref.headers);
    if (ref.needsApproval !== undefined) out.needsApproval = ref.needsApproval;
    return out;
  });
}

/**
 * The resolved project as JSON: every entry with its defaults, environment-variable NAMES, theme
 * tokens and theme CSS. No module code, no absolute paths, no environment values, no timestamps
 * (the same project always gives the same manifest).
 */
export function projectManifest(project: Project): Obj {
  return {
    manifestVersion: MANIFEST_VERSION,
    generatedBy: `@agentsvc/cli@${CLI_VERSION}`,
    configFile: project.configFile ?? null,
    config: project.config,
    rootAgent: project.rootAgent.name,
    agents: project.agents.map((a) => {
      const def = isObj(a.definition) ? a.definition : {};
      const out: Obj = {
        name: a.name,
        declaredName: a.declaredName,
        file: a.file,
        model: modelOf(def),
        tools: toolNames(def.tools),
        toolServers: toolServerRefs(def.toolServers),
        gatewaySession: a.gatewaySession,
      };
      if (a.memory) out.memory = a.memory;
      if (typeof def.maxSteps === "number") out.maxSteps = def.maxSteps;
      return out;
    }),
    toolServers: project.toolServers.map((t) => ({
      name: t.name,
      file: t.file,
      tools: toolNames(isObj(t.definition) ? t.definition.tools : undefined),
    })),
    exposures: project.exposures,
    channels: project.channels,
    pushGateways: project.pushGateways,
  };
}
