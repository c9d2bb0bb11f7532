// The platform keys of a `type: telegram` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

const DEFAULT_API_BASE_URL = "https://api.telegram.org";

export const entrySchema = {
  botTokenEnvVar: envVarName,
  apiBaseUrl: v.optional(
    httpUrl("Bot API base URL (a self-hosted Bot API server or a proxy)"),
    DEFAULT_API_BASE_URL,
  ),
};

export type TelegramEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
