import * as v from "valibot";
import type { IssueSink } from "../issues.js";
import { parseDuration, scheduleSchema } from "../schemas/schedule.js";
import type { AgentEntry, PushGatewayEntry, ScheduleEntry } from "../types.js";
import { DATA_EXTS, listFolder, MODULE_EXTS, reportDuplicateNames } from "./files.js";
import { loadAny, type makeModuleLoader } from "./module.js";

/** schedules/<name>.(yaml|json|ts): one schedule per file, named by the file. */
export async function loadSchedules(
  root: string,
  loader: ReturnType<typeof makeModuleLoader>,
  sink: IssueSink,
  agents: AgentEntry[],
  rootAgent: AgentEntry | undefined,
  pushGateways: PushGatewayEntry[],
): Promise<ScheduleEntry[]> {
  const files = listFolder(root, "schedules", [...DATA_EXTS, ...MODULE_EXTS], sink);
  const dupes = reportDuplicateNames(files, "schedule", sink);
  const out: ScheduleEntry[] = [];
  for (const f of files) {
    const loaded = await loadAny(loader, f, sink);
    if (!loaded.ok) continue;
    const r = v.safeParse(scheduleSchema, loaded.value);
    if (!r.success) {
      sink.fromValibot(f.rel, r.issues);
      continue;
    }
    const s = r.output;
    if ((s.cron === undefined) === (s.every === undefined)) {
      sink.error(f.rel, "", "must have cron (a pattern) or every (a duration), exactly one of them");
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
    // Keys that only one platform reads are refused elsewhere, so a typo'd target is not silently plain.
    const only = (key: "subject" | "templateName" | "templateLanguage", type: string) =>
      s.to[key] !== undefined && gateway.type !== type
        ? `is for ${type} targets only (this schedule sends to ${gateway.type})`
        : undefined;
    const misplaced = (["subject", "templateName", "templateLanguage"] as const)
      .map((key) => [key, only(key, key === "subject" ? "email" : "whatsapp")] as const)
      .find(([, problem]) => problem);
    if (misplaced) {
      sink.error(f.rel, `to.${misplaced[0]}`, misplaced[1]!);
      continue;
    }
    if ((s.to.templateName === undefined) !== (s.to.templateLanguage === undefined)) {
      sink.error(
        f.rel,
        s.to.templateName === undefined ? "to.templateName" : "to.templateLanguage",
        "templateName and templateLanguage go together (the approved template's name and its language code, such as en_US)",
      );
      continue;
    }
    if (s.agent !== undefined && !agents.some((a) => a.name === s.agent)) {
      sink.error(
        f.rel,
        "agent",
        `must name an agent file under agents/ (found: ${agents.map((a) => a.name).join(", ") || "none"})`,
        JSON.stringify(s.agent),
      );
      continue;
    }
    // Scheduled turns run through the gateway session, which runs the root agent only.
    if (s.agent !== undefined && rootAgent && s.agent !== rootAgent.name) {
      sink.error(
        f.rel,
        "agent",
        `must be the root agent ("${rootAgent.name}"): scheduled turns run on the gateway session's agent`,
        JSON.stringify(s.agent),
      );
      continue;
    }
    if (dupes.has(f.base) && out.some((x) => x.name === f.base)) continue;
    const entry: ScheduleEntry = {
      name: f.base,
      file: f.rel,
      timezone: s.timezone ?? "UTC",
      prompt: s.prompt,
      to: {
        gateway: gateway.type,
        thread: s.to.thread,
        ...(s.to.subject !== undefined ? { subject: s.to.subject } : {}),
        ...(s.to.templateName !== undefined && s.to.templateLanguage !== undefined
          ? { template: { name: s.to.templateName, language: s.to.templateLanguage } }
          : {}),
      },
      enabled: s.enabled ?? true,
      catchUp: s.catchUp ?? "none",
    };
    if (s.cron !== undefined) entry.cron = s.cron;
    if (s.every !== undefined) entry.everyMs = parseDuration(s.every)!;
    if (s.agent !== undefined) entry.agent = s.agent;
    out.push(entry);
  }
  return out;
}
