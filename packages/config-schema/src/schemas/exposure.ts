import * as v from "valibot";
import { envVarName, nonEmptyString, strict } from "./common.js";

export const EXPOSES = ["agent", "mcp", "webui"] as const;

// Fixed routes of the http gateway and the webhook gateways; an exposure mounted there would shadow them.
const RESERVED_PREFIXES = ["/gateways", "/webhooks", "/interactions"] as const;

/** Mount path of an exposure: starts with `/`; a trailing `/` is dropped (`/chat/` is `/chat`). */
export const exposurePath = v.pipe(
  v.string("must be a string: the mount path, e.g. /chat"),
  v.regex(/^\//, "must start with / (a mount path such as /chat)"),
  v.regex(
    /^[A-Za-z0-9/._~-]*$/,
    "must contain only letters, digits and / . _ ~ - (no spaces, query or fragment)",
  ),
  v.check((p) => !p.split("/").some((s) => s === "." || s === ".."), "must not contain . or .. segments"),
  v.transform((p) => (p.length > 1 ? p.replace(/\/+$/, "") || "/" : p)),
  v.check(
    (p) => !RESERVED_PREFIXES.some((r) => p === r || p.startsWith(`${r}/`)),
    `must not be under ${RESERVED_PREFIXES.join(", ")} (routes of the gateways live there)`,
  ),
);

export const agentExposureSchema = strict(
  {
    exposes: v.literal("agent", "must be agent"),
    path: exposurePath,
    apiKeyEnvVar: v.optional(envVarName),
  },
  "an agent exposure",
);

export const mcpExposureSchema = strict(
  {
    exposes: v.literal("mcp", "must be mcp"),
    path: exposurePath,
    target: nonEmptyString("the declared name of a tool server under mcp/"),
    apiKeyEnvVar: v.optional(envVarName),
  },
  "an mcp exposure",
);
