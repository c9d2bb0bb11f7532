import * as v from "valibot";
import { envVarName, gatewayEntryCommon, httpUrl, integerIn, nonEmptyString, strict } from "./common.js";
import { senderAccessKeys } from "./access.js";
import { mediaKeys } from "./media.js";

export const PUSH_TYPES = [
  "telegram",
  "slack",
  "discord",
  "email",
  "whatsapp",
  "teams",
  "twilio",
  "github",
  "signal",
] as const;
export type PushType = (typeof PUSH_TYPES)[number];

export const PUSH_DEFAULTS = {
  discordIntents: 37377, // guilds + guild messages + direct messages + message content
  imapPort: 993,
  pollIntervalSeconds: 60,
  smtpPort: 465,
  whatsappApiVersion: "v21.0",
  teamsTenantId: "botframework.com",
  signalHttpUrl: "http://127.0.0.1:8080",
  githubApiBaseUrl: "https://api.github.com",
  whatsappApiBaseUrl: "https://graph.facebook.com",
  twilioApiBaseUrl: "https://api.twilio.com",
  teamsOpenIdMetadataUrl: "https://login.botframework.com/v1/.well-known/openidconfiguration",
  teamsLoginBaseUrl: "https://login.microsoftonline.com",
  teamsServiceUrl: "https://smba.trafficmanager.net/teams/",
  telegramApiBaseUrl: "https://api.telegram.org",
  slackApiBaseUrl: "https://slack.com/api",
  discordApiBaseUrl: "https://discord.com/api/v10",
} as const;

const lit = <T extends PushType>(t: T) => v.literal(t, `must be ${t}`);

export const pushSchemas = {
  telegram: strict(
    {
      type: lit("telegram"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      botTokenEnvVar: envVarName,
      apiBaseUrl: v.optional(
        httpUrl("Bot API base URL (a self-hosted Bot API server or a proxy)"),
        PUSH_DEFAULTS.telegramApiBaseUrl,
      ),
    },
    "a telegram entry",
  ),
  slack: strict(
    {
      type: lit("slack"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      botTokenEnvVar: envVarName,
      appTokenEnvVar: envVarName,
      apiBaseUrl: v.optional(httpUrl("Web API base URL (a proxy)"), PUSH_DEFAULTS.slackApiBaseUrl),
    },
    "a slack entry",
  ),
  discord: strict(
    {
      type: lit("discord"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      botTokenEnvVar: envVarName,
      intents: v.optional(
        integerIn(0, 2 ** 31 - 1, "gateway intents bit field"),
        PUSH_DEFAULTS.discordIntents,
      ),
      apiBaseUrl: v.optional(httpUrl("REST API base URL (a proxy)"), PUSH_DEFAULTS.discordApiBaseUrl),
    },
    "a discord entry",
  ),
  email: strict(
    {
      type: lit("email"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      imapHostEnvVar: envVarName,
      imapUsernameEnvVar: envVarName,
      imapPasswordEnvVar: envVarName,
      fromAddressEnvVar: envVarName,
      imapPort: v.optional(integerIn(1, 65535, "IMAP port"), PUSH_DEFAULTS.imapPort),
      pollIntervalSeconds: v.optional(
        integerIn(1, 86_400, "seconds between IMAP polls"),
        PUSH_DEFAULTS.pollIntervalSeconds,
      ),
      // Outbound SMTP: each defaults to the matching IMAP value (one account for both).
      smtpHostEnvVar: v.optional(envVarName),
      smtpUsernameEnvVar: v.optional(envVarName),
      smtpPasswordEnvVar: v.optional(envVarName),
      smtpPort: v.optional(
        integerIn(1, 65535, "SMTP port (465 implicit TLS, others STARTTLS)"),
        PUSH_DEFAULTS.smtpPort,
      ),
      // RFC 8601 authserv-ids whose Authentication-Results decide whether a reply may approve.
      trustedAuthservIds: v.optional(
        v.array(
          v.pipe(
            v.string("must be a string such as mx.google.com"),
            v.regex(
              /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
              "must be the authserv-id the receiving mail server writes first in Authentication-Results (a host name such as mx.google.com)",
            ),
          ),
          "must be a list of authserv-ids (host names such as mx.google.com)",
        ),
      ),
      // A private CA for both IMAP and SMTP (PEM), relative to the working directory.
      tlsCaFile: v.optional(
        nonEmptyString("PEM file of the CA that signed the IMAP and SMTP server certificates"),
      ),
    },
    "an email entry",
  ),
  whatsapp: strict(
    {
      type: lit("whatsapp"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      accessTokenEnvVar: envVarName,
      phoneNumberIdEnvVar: envVarName,
      appSecretEnvVar: envVarName,
      verifyTokenEnvVar: envVarName,
      apiVersion: v.optional(
        v.pipe(
          v.string("must be a string such as v21.0"),
          v.regex(/^v\d+\.\d+$/, "must look like v21.0 (Graph API version)"),
        ),
        PUSH_DEFAULTS.whatsappApiVersion,
      ),
      apiBaseUrl: v.optional(httpUrl("Graph API base URL"), PUSH_DEFAULTS.whatsappApiBaseUrl),
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
    },
    "a whatsapp entry",
  ),
  teams: strict(
    {
      type: lit("teams"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      appIdEnvVar: envVarName,
      appPasswordEnvVar: envVarName,
      tenantId: v.optional(nonEmptyString("Bot Framework tenant id"), PUSH_DEFAULTS.teamsTenantId),
      openIdMetadataUrl: v.optional(
        httpUrl("Bot Framework OpenID metadata URL (inbound token keys)"),
        PUSH_DEFAULTS.teamsOpenIdMetadataUrl,
      ),
      loginBaseUrl: v.optional(
        httpUrl("OAuth2 login base URL (outbound token: <loginBaseUrl>/<tenantId>/oauth2/v2.0/token)"),
        PUSH_DEFAULTS.teamsLoginBaseUrl,
      ),
      serviceUrl: v.optional(
        httpUrl("connector service URL for conversations the bot has not heard from since it started"),
        PUSH_DEFAULTS.teamsServiceUrl,
      ),
    },
    "a teams entry",
  ),
  twilio: strict(
    {
      type: lit("twilio"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      accountSidEnvVar: envVarName,
      authTokenEnvVar: envVarName,
      fromEnvVar: envVarName,
      messagingServiceSid: v.optional(nonEmptyString("messaging service SID, used instead of from")),
      publicUrl: v.optional(httpUrl("public webhook URL used in the signature base behind a proxy")),
      apiBaseUrl: v.optional(httpUrl("Twilio REST API base URL"), PUSH_DEFAULTS.twilioApiBaseUrl),
    },
    "a twilio entry",
  ),
  github: strict(
    {
      type: lit("github"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      tokenEnvVar: envVarName,
      webhookSecretEnvVar: envVarName,
      botNameEnvVar: envVarName,
      apiBaseUrl: v.optional(httpUrl("API base URL"), PUSH_DEFAULTS.githubApiBaseUrl),
    },
    "a github entry",
  ),
  signal: strict(
    {
      type: lit("signal"),
      ...gatewayEntryCommon,
      ...senderAccessKeys,
      ...mediaKeys,
      accountEnvVar: envVarName,
      httpUrl: v.optional(httpUrl("signal-cli daemon HTTP address"), PUSH_DEFAULTS.signalHttpUrl),
    },
    "a signal entry",
  ),
} as const;
