// A schedule's `to` holds common keys (gateway, thread; page, user, conversation) checked here, and
// platform keys each adapter declares (`scheduleTarget`: e-mail's subject, WhatsApp's template),
// checked by the adapter of the gateway the schedule sends to (issue #42).
import * as v from "valibot";
import type { AdapterScheduleTarget } from "../adapter/contract.js";
import type { IssueSink } from "../issues.js";
import type { PushGatewayEntry } from "../types.js";
import { findAdapter, PUSH_TYPES } from "./adapters.js";

const COMMON_KEYS = new Set(["gateway", "thread", "page", "user", "conversation"]);

/**
 * The schedule targets the adapters declare, by registry name: the project's push gateways' and
 * the installed built-in ones' (so a key is refused naming the platform that reads it, even when
 * the project has no entry of that platform). Read once, only when a schedule has a key beyond the
 * common ones.
 */
export class ScheduleTargets {
  #byType: Promise<Map<string, AdapterScheduleTarget>> | undefined;

  constructor(
    private readonly root: string,
    private readonly gateways: Pick<PushGatewayEntry, "type" | "package">[],
  ) {}

  byType(): Promise<Map<string, AdapterScheduleTarget>> {
    this.#byType ??= this.#load();
    return this.#byType;
  }

  async #load(): Promise<Map<string, AdapterScheduleTarget>> {
    const out = new Map<string, AdapterScheduleTarget>();
    const named = this.gateways.map((g) => [g.type, g.package ?? g.type] as const);
    for (const [type, pkg] of [...named, ...PUSH_TYPES.map((t) => [t, t] as const)]) {
      if (out.has(type)) continue;
      const found = await findAdapter(pkg, this.root);
      if (found.found === "loaded" && found.module.scheduleTarget) out.set(type, found.module.scheduleTarget);
    }
    return out;
  }
}

/**
 * The schedule with its `to` reduced to the common keys and the keys some adapter declares taken
 * out (any other key stays, so the common schema refuses it with its nearest known key).
 */
export async function splitTarget(
  raw: unknown,
  targets: ScheduleTargets,
): Promise<{ common: unknown; platform: Record<string, unknown> }> {
  const to = (raw as { to?: unknown } | null)?.to;
  if (!to || typeof to !== "object" || Array.isArray(to)) return { common: raw, platform: {} };
  const extra = Object.keys(to).filter((key) => !COMMON_KEYS.has(key));
  if (extra.length === 0) return { common: raw, platform: {} };
  const declared = new Set([...(await targets.byType()).values()].flatMap((t) => Object.keys(t.entries)));
  const platform: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(to)) {
    if (declared.has(key)) platform[key] = value;
    else rest[key] = value;
  }
  return { common: { ...(raw as object), to: rest }, platform };
}

/**
 * The platform keys checked by the target gateway's adapter and read into what the target carries,
 * or undefined after errors naming the file and key: every key of another platform, and every
 * error of the adapter's own keys beside them.
 */
export async function readPlatformKeys(
  file: string,
  platform: Record<string, unknown>,
  gateway: Pick<PushGatewayEntry, "type">,
  targets: ScheduleTargets,
  sink: IssueSink,
): Promise<Record<string, unknown> | undefined> {
  if (Object.keys(platform).length === 0) return {};
  const byType = await targets.byType();
  const own = byType.get(gateway.type);
  // Every key of another platform is reported, not only the first.
  const foreign = Object.keys(platform).filter((key) => !(own && key in own.entries));
  for (const key of foreign) {
    const owner = [...byType].find(([, t]) => key in t.entries)?.[0];
    sink.error(file, `to.${key}`, `is for ${owner} targets only (this schedule sends to ${gateway.type})`);
  }
  if (!own) return foreign.length > 0 ? undefined : {};
  // The adapter's own keys are checked and read beside a foreign key (v.object ignores those).
  const parsed = v.safeParse(v.object(own.entries), platform);
  if (!parsed.success) {
    sink.fromValibot(file, parsed.issues, "to");
    return undefined;
  }
  const read = own.read(parsed.output);
  if ("issue" in read) {
    sink.error(file, `to.${read.issue.key}`, read.issue.message);
    return undefined;
  }
  return foreign.length > 0 ? undefined : read.target;
}
