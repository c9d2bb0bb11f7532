// The platform keys of a `type: github` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const DEFAULT_API_BASE_URL = "https://api.github.com";

export const entrySchema = {
  tokenEnvVar: envVarName,
  webhookSecretEnvVar: envVarName,
  botNameEnvVar: envVarName,
  apiBaseUrl: v.optional(httpUrl("API base URL"), DEFAULT_API_BASE_URL),
};

export type GithubEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>> & {
  approvalDestination?: string;
};
