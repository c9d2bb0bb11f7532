// `agentsvc doctor` for a matrix entry: whoami with the token, nothing sent
// (https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3accountwhoami; 401 M_UNKNOWN_TOKEN).
import { type AdapterDoctor, callJson, field, secretOf, trimUrl } from "@agentsvc/config-schema/adapter";
import type { MatrixEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as MatrixEntry;
  const check = "matrix whoami";
  const token = secretOf(env, entry.accessTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const whoami = `${trimUrl(entry.homeserverUrl)}/_matrix/client/v3/account/whoami`;
  const { status, body } = await callJson(whoami, { headers: { authorization: `Bearer ${token}` } });
  if (status === 200)
    return [{ check, status: "ok", detail: `bot ${String(field(body, "user_id") ?? "?")}` }];
  return [
    {
      check,
      status: "failed",
      detail: `${status} ${String(field(body, "errcode") ?? "")}`.trim(),
      fix: `the access token in ${entry.accessTokenEnvVar} was refused: log the bot in again and copy its access_token into ${entry.accessTokenEnvVar}`,
    },
  ];
};
