// The platform keys of a `type: twilio` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl, nonEmptyString } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const DEFAULT_API_BASE_URL = "https://api.twilio.com";

export const entrySchema = {
  accountSidEnvVar: envVarName,
  authTokenEnvVar: envVarName,
  fromEnvVar: envVarName,
  messagingServiceSid: v.optional(nonEmptyString("messaging service SID, used instead of from")),
  publicUrl: v.optional(httpUrl("public webhook URL used in the signature base behind a proxy")),
  apiBaseUrl: v.optional(httpUrl("Twilio REST API base URL"), DEFAULT_API_BASE_URL),
};

export type TwilioEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
