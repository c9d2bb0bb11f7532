// The platform keys of a matrix entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, httpUrl } from "@agentsvc/config-schema/adapter";
import type * as v from "valibot";

export const entrySchema = {
  /** The bot account's access token (https://spec.matrix.org/latest/client-server-api/#using-access-tokens). */
  accessTokenEnvVar: envVarName,
  homeserverUrl: httpUrl("homeserver base URL (https://matrix.example.org)"),
};

export type MatrixEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
