import * as v from "valibot";
import type { IssueSink } from "../issues.js";
import { parseDuration, scheduleSchema } from "../schemas/schedule.js";
import type {
  AgentEntry,
  Exposure,
  PushGatewayEntry,
  ScheduleEntry,
  ScheduleTarget,
  WebuiExposure,
} from "../types.js";
import { DATA_EXTS, listFolder, MODULE_EXTS, reportDuplicateNames } from "./files.js";
import { readPlatformKeys, ScheduleTargets, splitTarget } from "./schedule-targets.js";
import { loadAny, type makeModuleLoader } from "./module.js";

/**
 * A gateways/ file that failed its own validation (its errors are reported there): a schedule naming
 * it is told so, not that it is undeclared. Neither `type` nor `exposes`: it did not even load.
 */
export interface BrokenGateway {
  entryName: string;
  file: string;
  /** The `type` or `exposes` it declares, when a string. */
  type?: string;
  exposes?: string;
  /**
   * A push entry's adapter when its `type` is accepted (registry name, and package when the type
   * names one): a schedule naming the entry has its platform keys checked against it. A built-in
   * type whose package is not installed has one too, as a valid entry of that type is checked.
   */
  adapter?: { type: string; package?: string };
}

/**
 * schedules/<name>.(yaml|json|ts): one schedule per file, named by the file. A schedule's checks
 * (when, target, agent) are each reported: one failing does not hide the others.
 */
export async function loadSchedules(
  root: string,
  loader: ReturnType<typeof makeModuleLoader>,
  sink: IssueSink,
  project: {
    agents: AgentEntry[];
    rootAgent: AgentEntry | undefined;
    /** Every agent file's name, valid or not: one with errors is not reported again as missing. */
    agentFiles: string[];
    pushGateways: PushGatewayEntry[];
    exposures: Exposure[];
    broken: BrokenGateway[];
  },
): Promise<ScheduleEntry[]> {
  const { agents, rootAgent, agentFiles, pushGateways, exposures, broken } = project;
  const files = listFolder(root, "schedules", [...DATA_EXTS, ...MODULE_EXTS], sink);
  const dupes = reportDuplicateNames(files, "schedule", sink);
  const out: ScheduleEntry[] = [];
  // The adapters of entries with errors declare schedule keys too (a schedule naming one is checked).
  const adapters = broken.flatMap((g) => (g.adapter ? [g.adapter] : []));
  const targets = new ScheduleTargets(root, [...pushGateways, ...adapters]);
  for (const f of files) {
    const loaded = await loadAny(loader, f, sink);
    if (!loaded.ok) continue;
    const { common, platform } = await splitTarget(loaded.value, targets);
    const r = v.safeParse(scheduleSchema, common);
    if (!r.success) sink.fromValibot(f.rel, r.issues);
    // With errors in some keys, `to` and `agent` are still checked when valid on their own.
    const s = r.success ? { ...r.output, agentValid: true } : validParts(common);
    if (!s) continue;
    const when = (s.cron === undefined) !== (s.every === undefined);
    if (!when) sink.error(f.rel, "", "must have cron (a pattern) or every (a duration), exactly one of them");
    const page = s.to?.page !== undefined;
    const target = !s.to
      ? undefined
      : page
        ? pageTarget(f.rel, f.base, { ...platform, ...s.to }, exposures, broken, sink)
        : await gatewayTarget(f.rel, s.to, platform, pushGateways, broken, targets, sink);
    // A chat page turn runs on the named agent's own runs: any agent of the project may be named.
    const agentOk =
      s.agentValid &&
      checkAgent(f.rel, s.agent, agents, agentFiles, page || !s.to ? undefined : rootAgent, sink);
    if (!r.success || !when || !target || !agentOk) continue;
    if (dupes.has(f.base) && out.some((x) => x.name === f.base)) continue;
    out.push(entryOf(f, r.output, target));
  }
  return out;
}

/** A push gateway target: the entry (by file name or type), its thread, and the adapter's platform keys. */
async function gatewayTarget(
  file: string,
  to: Parsed["to"],
  platform: Record<string, unknown>,
  pushGateways: PushGatewayEntry[],
  broken: BrokenGateway[],
  targets: ScheduleTargets,
  sink: IssueSink,
): Promise<ScheduleTarget | undefined> {
  for (const key of ["user", "conversation"] as const) {
    if (to[key] !== undefined) sink.error(file, `to.${key}`, "is for chat page targets (to.page) only");
  }
  if (to.user !== undefined || to.conversation !== undefined) return undefined;
  if (to.gateway === undefined || to.thread === undefined) {
    sink.error(
      file,
      to.gateway === undefined ? "to.gateway" : "to.thread",
      "is required: to names a push gateway entry and its thread, or a chat page (to.page)",
    );
    return undefined;
  }
  // Push gateways register under their type; the file name is accepted as well.
  const gateway = pushGateways.find((g) => g.entryName === to.gateway || g.type === to.gateway);
  if (!gateway) {
    const failed = broken.find(
      // A package-typed entry is named by its adapter's registry name too, as a valid one is.
      (g) =>
        g.exposes === undefined &&
        (g.entryName === to.gateway || g.type === to.gateway || g.adapter?.type === to.gateway),
    );
    if (failed) {
      sink.error(file, "to.gateway", namesBroken(failed), JSON.stringify(to.gateway));
      // Its platform keys are still checked when its adapter is known; an entry whose type is
      // unknown has no adapter to say which keys are its own, so they wait for the entry's fix.
      if (failed.adapter) await readPlatformKeys(file, platform, failed.adapter, targets, sink);
      return undefined;
    }
    const known = pushGateways.map((g) => g.entryName).join(", ") || "none";
    sink.error(
      file,
      "to.gateway",
      `must name a push gateway entry under gateways/ (declared: ${known})`,
      JSON.stringify(to.gateway),
    );
    return undefined;
  }
  // The platform keys are the target adapter's (e-mail's subject, WhatsApp's template); a key
  // another adapter reads is refused here, so a typo'd target is not silently plain.
  const platformTarget = await readPlatformKeys(file, platform, gateway, targets, sink);
  if (!platformTarget) return undefined;
  return { ...platformTarget, gateway: gateway.type, thread: to.thread };
}

function namesBroken(g: BrokenGateway): string {
  return `names ${g.file}, which has errors of its own (reported for that file); fix them first`;
}

type Parsed = v.InferOutput<typeof scheduleSchema>;

/**
 * A schedule with errors: whether it has cron or every (present, valid or not), and its `to` and
 * `agent` when each is valid on its own. Undefined when it is not a mapping.
 */
function validParts(
  raw: unknown,
): { cron?: unknown; every?: unknown; to?: Parsed["to"]; agent?: string; agentValid: boolean } | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const { cron, every, to, agent } = raw as Record<string, unknown>;
  const toParsed = v.safeParse(scheduleSchema.entries.to, to);
  const agentParsed = v.safeParse(scheduleSchema.entries.agent, agent);
  return {
    cron,
    every,
    ...(toParsed.success ? { to: toParsed.output } : {}),
    ...(agentParsed.success && agentParsed.output !== undefined ? { agent: agentParsed.output } : {}),
    agentValid: agentParsed.success,
  };
}

const PAGE_KEYS = ["page", "user", "conversation"];

function entryOf(f: { base: string; rel: string }, s: Parsed, to: ScheduleTarget): ScheduleEntry {
  const entry: ScheduleEntry = {
    name: f.base,
    file: f.rel,
    timezone: s.timezone ?? "UTC",
    prompt: s.prompt,
    to,
    enabled: s.enabled ?? true,
    catchUp: s.catchUp ?? "none",
  };
  if (s.cron !== undefined) entry.cron = s.cron;
  if (s.every !== undefined) entry.everyMs = parseDuration(s.every)!;
  if (s.agent !== undefined) entry.agent = s.agent;
  return entry;
}

/** A named agent must exist and, as scheduled turns run on the gateway session's agent, be the root agent. */
function checkAgent(
  file: string,
  agent: string | undefined,
  agents: AgentEntry[],
  agentFiles: string[],
  rootAgent: AgentEntry | undefined,
  sink: IssueSink,
): boolean {
  if (agent === undefined) return true;
  // An agent file with errors of its own: those are reported for it.
  if (!agents.some((a) => a.name === agent) && agentFiles.includes(agent)) return false;
  if (!agents.some((a) => a.name === agent)) {
    sink.error(
      file,
      "agent",
      `must name an agent file under agents/ (found: ${agents.map((a) => a.name).join(", ") || "none"})`,
      JSON.stringify(agent),
    );
    return false;
  }
  if (rootAgent && agent !== rootAgent.name) {
    sink.error(
      file,
      "agent",
      `must be the root agent ("${rootAgent.name}"): a gateway target's turn runs on the gateway session's agent (a chat page target may name any agent)`,
      JSON.stringify(agent),
    );
    return false;
  }
  return true;
}

/**
 * A chat page target: a webui entry, one of its accounts (none when it has no `users`: its shared
 * workspace), and the conversation id (default `schedule-<name>`).
 */
function pageTarget(
  file: string,
  name: string,
  to: Parsed["to"] & Record<string, unknown>,
  exposures: Exposure[],
  broken: BrokenGateway[],
  sink: IssueSink,
): ScheduleTarget | undefined {
  // Every gateway key beside page is reported, and the page itself still checked.
  const mixed = Object.keys(to).filter((key) => !PAGE_KEYS.includes(key) && to[key] !== undefined);
  for (const key of mixed)
    sink.error(
      file,
      `to.${key}`,
      "is for push gateway targets; a chat page target takes page, user, conversation",
    );
  const pages = exposures.filter((e): e is WebuiExposure => e.exposes === "webui");
  const page = pages.find((p) => p.entryName === to.page);
  if (!page) {
    const failed = broken.find(
      (g) => g.entryName === to.page && (g.exposes === "webui" || (!g.exposes && !g.type)),
    );
    if (failed) {
      sink.error(file, "to.page", namesBroken(failed), JSON.stringify(to.page));
      return undefined;
    }
    const known = pages.map((p) => p.entryName).join(", ") || "none";
    sink.error(
      file,
      "to.page",
      `must name a chat page entry (exposes: webui) under gateways/ (declared: ${known})`,
      JSON.stringify(to.page),
    );
    return undefined;
  }
  const users = page.users?.map((u) => u.username) ?? [];
  if (users.length > 0 && (to.user === undefined || !users.includes(to.user))) {
    sink.error(
      file,
      "to.user",
      `must be one of the page's accounts (${users.join(", ")})`,
      JSON.stringify(to.user),
    );
    return undefined;
  }
  if (users.length === 0 && to.user !== undefined) {
    sink.error(file, "to.user", "must be left out: the page has no users (everyone shares one workspace)");
    return undefined;
  }
  if (mixed.length > 0) return undefined;
  return {
    page: page.entryName,
    ...(to.user !== undefined ? { user: to.user } : {}),
    conversation: to.conversation ?? `schedule-${name}`,
  };
}
