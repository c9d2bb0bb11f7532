// The platform keys of a `type: slack` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const entrySchema = {
  botTokenEnvVar: envVarName,
  appTokenEnvVar: envVarName,
  apiBaseUrl: v.optional(httpUrl("Web API base URL (a proxy)"), "https://slack.com/api"),
};

export type SlackEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
