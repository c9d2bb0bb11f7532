// The platform keys of a `type: whatsapp` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const DEFAULT_API_BASE_URL = "https://graph.facebook.com";
export const DEFAULT_API_VERSION = "v21.0";

export const entrySchema = {
  accessTokenEnvVar: envVarName,
  phoneNumberIdEnvVar: envVarName,
  appSecretEnvVar: envVarName,
  verifyTokenEnvVar: envVarName,
  apiVersion: v.optional(
    v.pipe(
      v.string("must be a string such as v21.0"),
      v.regex(/^v\d+\.\d+$/, "must look like v21.0 (Graph API version)"),
    ),
    DEFAULT_API_VERSION,
  ),
  apiBaseUrl: v.optional(httpUrl("Graph API base URL"), DEFAULT_API_BASE_URL),
  // Sent when a reply fails outside the 24-hour window (error 131047). Meta's template names
  // are lower-case letters, digits and underscores, at most 512 characters.
  templateName: v.optional(
    v.pipe(
      v.string("must be a message template name"),
      v.regex(/^[a-z0-9_]{1,512}$/, "must be a template name: lower-case letters, digits and _"),
    ),
  ),
  templateLanguage: v.optional(
    v.pipe(
      v.string("must be a template language code such as en_US"),
      v.regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, "must look like en or en_US (template language code)"),
    ),
  ),
};

export type WhatsappEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
