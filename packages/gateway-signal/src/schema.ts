// The platform keys of a `type: signal` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const SIGNAL_DEFAULT_HTTP_URL = "http://127.0.0.1:8080";

export const entrySchema = {
  accountEnvVar: envVarName,
  httpUrl: v.optional(httpUrl("signal-cli daemon HTTP address"), SIGNAL_DEFAULT_HTTP_URL),
};

export type SignalEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
