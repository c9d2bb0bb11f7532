// The platform keys of a `type: teams` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl, nonEmptyString } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const DEFAULT_TENANT_ID = "botframework.com";
export const DEFAULT_OPENID_METADATA_URL =
  "https://login.botframework.com/v1/.well-known/openidconfiguration";
export const DEFAULT_LOGIN_BASE_URL = "https://login.microsoftonline.com";
/** Microsoft's global connector URL for proactive messages. */
export const DEFAULT_SERVICE_URL = "https://smba.trafficmanager.net/teams/";

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
