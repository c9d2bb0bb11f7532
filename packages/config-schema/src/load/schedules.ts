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

/** schedules/<name>.(yaml|json|ts): one schedule per file, named by the file. */
export async function loadSchedules(
  root: string,
  loader: ReturnType<typeof makeModuleLoader>,
  sink: IssueSink,
  agents: AgentEntry[],
  rootAgent: AgentEntry | undefined,
  pushGateways: PushGatewayEntry[],
  exposures: Exposure[] = [],
): Promise<ScheduleEntry[]> {
  const files = listFolder(root, "schedules", [...DATA_EXTS, ...MODULE_EXTS], sink);
  const dupes = reportDuplicateNames(files, "schedule", sink);
  const out: ScheduleEntry[] = [];
  const targets = new ScheduleTargets(root, pushGateways);
  for (const f of files) {
    const loaded = await loadAny(loader, f, sink);
    if (!loaded.ok) continue;
    const { common, platform } = await splitTarget(loaded.value, targets);
    const r = v.safeParse(scheduleSchema, common);
    if (!r.success) {
      sink.fromValibot(f.rel, r.issues);
      continue;
    }
    const s = r.output;
    if ((s.cron === undefined) === (s.every === undefined)) {
      sink.error(f.rel, "", "must have cron (a pattern) or every (a duration), exactly one of them");
      continue;
    }
    if (s.to.page !== undefined) {
      const target = pageTarget(f.rel, f.base, { ...platform, ...s.to }, exposures, sink);
      if (!target) continue;
      // A chat page turn runs on the named agent's own runs: any agent of the project may be named.
      if (!checkAgent(f.rel, s.agent, agents, undefined, sink)) continue;
      if (dupes.has(f.base) && out.some((x) => x.name === f.base)) continue;
      out.push(entryOf(f, s, target));
      continue;
    }
    for (const key of ["user", "conversation"] as const) {
      if (s.to[key] !== undefined) sink.error(f.rel, `to.${key}`, "is for chat page targets (to.page) only");
    }
    if (s.to.user !== undefined || s.to.conversation !== undefined) continue;
    if (s.to.gateway === undefined || s.to.thread === undefined) {
      sink.error(
        f.rel,
        s.to.gateway === undefined ? "to.gateway" : "to.thread",
        "is required: to names a push gateway entry and its thread, or a chat page (to.page)",
      );
      continue;
    }
    // Push gateways register under their type; the file name is accepted as well.
    const gateway = pushGateways.find((g) => g.entryName === s.to.gateway || g.type === s.to.gateway);
    if (!gateway) {
      const known = pushGateways.map((g) => g.entryName).join(", ") || "none";
      sink.error(
        f.rel,
        "to.gateway",
        `must name a push gateway entry under gateways/ (declared: ${known})`,
        JSON.stringify(s.to.gateway),
      );
      continue;
    }
    // The platform keys are the target adapter's (e-mail's subject, WhatsApp's template); a key
    // another adapter reads is refused here, so a typo'd target is not silently plain.
    const platformTarget = await readPlatformKeys(f.rel, platform, gateway, targets, sink);
    if (!platformTarget) continue;
    if (!checkAgent(f.rel, s.agent, agents, rootAgent, sink)) continue;
    if (dupes.has(f.base) && out.some((x) => x.name === f.base)) continue;
    out.push(entryOf(f, s, { ...platformTarget, gateway: gateway.type, thread: s.to.thread }));
  }
  return out;
}

type Parsed = v.InferOutput<typeof scheduleSchema>;

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
  rootAgent: AgentEntry | undefined,
  sink: IssueSink,
): boolean {
  if (agent === undefined) return true;
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
  sink: IssueSink,
): ScheduleTarget | undefined {
  for (const key of Object.keys(to)) {
    if (!PAGE_KEYS.includes(key) && to[key] !== undefined) {
      sink.error(
        file,
        `to.${key}`,
        "is for push gateway targets; a chat page target takes page, user, conversation",
      );
      return undefined;
    }
  }
  const pages = exposures.filter((e): e is WebuiExposure => e.exposes === "webui");
  const page = pages.find((p) => p.entryName === to.page);
  if (!page) {
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
  return {
    page: page.entryName,
    ...(to.user !== undefined ? { user: to.user } : {}),
    conversation: to.conversation ?? `schedule-${name}`,
  };
}
