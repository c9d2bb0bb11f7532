// The platform keys of a mattermost entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const entrySchema = {
  /** A bot account's access token (https://developers.mattermost.com/integrate/reference/bot-accounts/). */
  tokenEnvVar: envVarName,
  serverUrl: httpUrl("Mattermost server URL (https://chat.example.com)"),
  /** Approvals as buttons: the secret their context is signed with (needs the server's publicBaseUrl). */
  actionSecretEnvVar: v.optional(envVarName),
  /** Let `@channel`, `@all` and `@here` in the bot's posts notify the channel (default false: broken). */
  allowChannelMentions: v.optional(v.boolean("must be true or false")),
};

export type MattermostEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
