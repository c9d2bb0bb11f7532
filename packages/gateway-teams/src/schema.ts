// The platform keys of a `type: teams` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl, nonEmptyString } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";
import {
  DEFAULT_LOGIN_BASE_URL,
  DEFAULT_OPENID_METADATA_URL,
  DEFAULT_SERVICE_URL,
  DEFAULT_TENANT_ID,
} from "./gateway.js";

export const entrySchema = {
  appIdEnvVar: envVarName,
  appPasswordEnvVar: envVarName,
  tenantId: v.optional(nonEmptyString("Bot Framework tenant id"), DEFAULT_TENANT_ID),
  openIdMetadataUrl: v.optional(
    httpUrl("Bot Framework OpenID metadata URL (inbound token keys)"),
    DEFAULT_OPENID_METADATA_URL,
  ),
  loginBaseUrl: v.optional(
    httpUrl("OAuth2 login base URL (outbound token: <loginBaseUrl>/<tenantId>/oauth2/v2.0/token)"),
    DEFAULT_LOGIN_BASE_URL,
  ),
  serviceUrl: v.optional(
    httpUrl("connector service URL for conversations the bot has not heard from since it started"),
    DEFAULT_SERVICE_URL,
  ),
};

export type TeamsEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
