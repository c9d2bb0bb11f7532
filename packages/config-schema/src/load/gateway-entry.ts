import * as v from "valibot";
import { describeValue, type IssueSink } from "../issues.js";
import { CHANNEL_TYPES, cliChannelSchema, httpChannelSchema, mockChannelSchema } from "../schemas/channel.js";
import { agentExposureSchema, EXPOSES, mcpExposureSchema } from "../schemas/exposure.js";
import { pushEntrySchema, pushEntryWithoutAdapter } from "../schemas/push.js";
import { splitTheme } from "../schemas/theme.js";
import { DEFAULT_THEME_FILE, webuiExposureSchema } from "../schemas/webui.js";
import type { ChannelEntry, Exposure, PushGatewayEntry } from "../types.js";
import { isAdapterPackageName } from "../adapter/package-name.js";
import { type AdapterModule, findAdapter, PUSH_TYPES } from "./adapters.js";

export const GATEWAY_TYPES = [...CHANNEL_TYPES, ...PUSH_TYPES] as const;

export type ValidEntry =
  | { kind: "exposure"; entry: Exposure; themeFileExplicit: boolean }
  | { kind: "channel"; entry: ChannelEntry }
  | { kind: "push"; entry: PushGatewayEntry };

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

function parse<S extends v.GenericSchema>(
  schema: S,
  raw: unknown,
  file: string,
  sink: IssueSink,
): v.InferOutput<S> | undefined {
  const r = v.safeParse(schema, raw);
  if (r.success) return r.output;
  sink.fromValibot(file, r.issues);
  return undefined;
}

/**
 * Validates one gateway file's content: an exposure (`exposes`) or a channel adapter (`type`). A
 * push-style entry's platform keys are checked by its adapter package, found from `root`.
 */
export async function validateGatewayEntry(
  raw: unknown,
  file: string,
  entryName: string,
  sink: IssueSink,
  root: string,
): Promise<ValidEntry | undefined> {
  if (!isPlainObject(raw)) {
    sink.error(file, "", "must be a mapping with an exposes key or a type key", describeValue(raw));
    return undefined;
  }
  const hasExposes = "exposes" in raw;
  const hasType = "type" in raw;
  if (hasExposes && hasType) {
    sink.error(file, "", "must have exposes (an exposure) or type (a channel adapter), not both");
    return undefined;
  }
  if (!hasExposes && !hasType) {
    sink.error(
      file,
      "",
      `must have an exposes key (${EXPOSES.join(", ")}) or a type key (${GATEWAY_TYPES.join(", ")})`,
    );
    return undefined;
  }
  const base = { entryName, file };
  if (hasExposes) {
    switch (raw.exposes) {
      case "agent": {
        const out = parse(agentExposureSchema, raw, file, sink);
        return out && { kind: "exposure", entry: { ...base, ...out }, themeFileExplicit: false };
      }
      case "mcp": {
        const out = parse(mcpExposureSchema, raw, file, sink);
        return out && { kind: "exposure", entry: { ...base, ...out }, themeFileExplicit: false };
      }
      case "webui": {
        const out = parse(webuiExposureSchema, raw, file, sink);
        if (!out) return undefined;
        const { theme, themeFile, users, ...rest } = out;
        const entry: Exposure = {
          ...base,
          ...rest,
          database: { datasource: out.database.datasource, path: out.database.path },
          ...splitTheme(theme),
          themeFile: themeFile ?? DEFAULT_THEME_FILE,
        };
        if (users) entry.users = users.map((u) => ({ ...u, displayName: u.displayName ?? u.username }));
        return { kind: "exposure", entry, themeFileExplicit: themeFile !== undefined };
      }
      default:
        sink.error(file, "exposes", `must be one of ${EXPOSES.join(", ")}`, describeValue(raw.exposes));
        return undefined;
    }
  }
  const type = raw.type;
  switch (type) {
    case "mock": {
      const out = parse(mockChannelSchema, raw, file, sink);
      return out && { kind: "channel", entry: { ...base, ...out } };
    }
    case "cli": {
      const out = parse(cliChannelSchema, raw, file, sink);
      return out && { kind: "channel", entry: { ...base, ...out } };
    }
    case "http": {
      const out = parse(httpChannelSchema, raw, file, sink);
      return out && { kind: "channel", entry: { ...base, ...out } };
    }
  }
  if (
    typeof type === "string" &&
    ((PUSH_TYPES as readonly string[]).includes(type) || isAdapterPackageName(type))
  )
    return validatePushEntry(raw, type, base, sink, root);
  sink.error(
    file,
    "type",
    `unknown type (expected one of ${GATEWAY_TYPES.join(", ")}${OR_PACKAGE})`,
    describeValue(type),
  );
  return undefined;
}

const OR_PACKAGE = ", or an installed adapter package such as @acme/agentsvc-gateway-line";

/**
 * The adapter a push-style `type` names, when that type is accepted: its package is installed and
 * loads as an adapter of a bot account, and a package does not claim a built-in name. `missing` is a
 * built-in type whose package is not installed (accepted, its platform keys left unchecked). One
 * definition for an entry's validation and for a schedule naming an entry with errors.
 */
export async function pushAdapterOf(
  type: string,
  root: string,
): Promise<
  | { ok: true; pkg: string; module: AdapterModule }
  | { ok: false; missing: true }
  | { ok: false; missing: false; why: string }
> {
  const found = await findAdapter(type, root);
  if (found.found === "missing" && !isAdapterPackageName(type)) return { ok: false, missing: true };
  const refused = (why: string) => ({ ok: false, missing: false, why }) as const;
  if (found.found !== "loaded")
    return refused(found.found === "missing" ? `the package ${found.pkg} is not installed` : found.message);
  const info = found.module.adapter;
  if (info.account !== "bot")
    return refused(
      `${found.pkg} speaks through a personal account; only bot, app and business accounts are supported`,
    );
  if (isAdapterPackageName(type) && [...GATEWAY_TYPES].includes(info.type as never))
    return refused(`${found.pkg} claims the built-in name "${info.type}"`);
  return { ok: true, pkg: found.pkg, module: found.module };
}

/**
 * A push-style entry: the common keys here, the platform keys by the adapter package. A built-in
 * type whose package is not installed keeps its platform keys unchecked (check and start name the
 * package to install); a package type that is not installed, or whose adapter is refused, is an
 * unknown type, and its common keys are still checked (every error at once).
 */
async function validatePushEntry(
  raw: Record<string, unknown>,
  type: string,
  base: { entryName: string; file: string },
  sink: IssueSink,
  root: string,
): Promise<ValidEntry | undefined> {
  const { file } = base;
  const found = await pushAdapterOf(type, root);
  if (!found.ok && found.missing) {
    const out = parse(pushEntryWithoutAdapter(type), raw, file, sink);
    return out && { kind: "push", entry: { ...base, ...out } as PushGatewayEntry };
  }
  if (!found.ok) {
    sink.error(file, "type", `unknown type (${found.why})`, describeValue(type));
    parse(pushEntryWithoutAdapter(type), raw, file, sink);
    return undefined;
  }
  const info = found.module.adapter;
  const out = parse(pushEntrySchema(type, found.module.entrySchema, info.type), raw, file, sink);
  if (!out) return undefined;
  // The registry name is the adapter's; a package-named entry remembers its package for start.
  const named = isAdapterPackageName(type) ? { type: info.type, package: found.pkg } : {};
  // The adapter's default for attachments without a media block (only a non-default one is kept).
  const media = info.unsupportedMedia === "ignore" ? { unsupportedMedia: "ignore" } : {};
  return { kind: "push", entry: { ...base, ...out, ...named, ...media } as PushGatewayEntry };
}
