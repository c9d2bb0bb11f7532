// The platform keys of a `type: discord` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl, integerIn } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

/** guilds + guild messages + direct messages + message content (spec gateways §8). */
const DEFAULT_INTENTS = 37377;

export const entrySchema = {
  botTokenEnvVar: envVarName,
  intents: v.optional(integerIn(0, 2 ** 31 - 1, "gateway intents bit field"), DEFAULT_INTENTS),
  apiBaseUrl: v.optional(httpUrl("REST API base URL (a proxy)"), "https://discord.com/api/v10"),
};

export type DiscordEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
