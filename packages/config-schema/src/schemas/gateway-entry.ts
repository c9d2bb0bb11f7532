import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { cliChannelSchema, httpChannelSchema, mockChannelSchema } from "./channel.js";
import { agentExposureSchema, mcpExposureSchema } from "./exposure.js";
import { PUSH_TYPES } from "../load/adapters.js";
import { pushEntryWithoutAdapter } from "./push.js";
import { webuiExposureSchema } from "./webui.js";

/**
 * Every kind of file under gateways/ (YAML/JSON form), for editors. A push-style entry's platform
 * keys belong to its adapter package, so here it lists the common keys and allows any other.
 */
export const gatewayEntrySchema = v.union([
  agentExposureSchema,
  mcpExposureSchema,
  webuiExposureSchema,
  mockChannelSchema,
  cliChannelSchema,
  httpChannelSchema,
  ...PUSH_TYPES.map(pushEntryWithoutAdapter),
]);

/**
 * JSON Schema (draft-07) of a gateway entry file. Rules JSON Schema cannot express (cross-file
 * checks, `..` segments, emoji icons) are only enforced by `loadProject`.
 */
export function gatewayEntryJsonSchema(): Record<string, unknown> {
  const schema = toJsonSchema(gatewayEntrySchema, { errorMode: "ignore" }) as Record<string, unknown>;
  return {
    ...schema,
    $id: "https://agentsvc.dev/schema/gateway-entry.schema.json",
    title: "agentsvc gateway entry",
    description:
      "One file under gateways/: an exposure (exposes: agent | mcp | webui) or a channel adapter (type: ...).",
  };
}
