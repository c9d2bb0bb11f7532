// `agentsvc doctor` for a mattermost entry: GET /api/v4/users/me with the token, nothing sent
// (https://api.mattermost.com/#tag/users/operation/GetUser, "me"; 401 for a revoked token).
import { type AdapterDoctor, callJson, field, secretOf, trimUrl } from "@agentsvc/config-schema/adapter";
import type { MattermostEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as MattermostEntry;
  const check = "mattermost users/me";
  const token = secretOf(env, entry.tokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const { status, body } = await callJson(`${trimUrl(entry.serverUrl)}/api/v4/users/me`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (status === 200)
    return [{ check, status: "ok", detail: `bot @${String(field(body, "username") ?? "?")}` }];
  return [
    {
      check,
      status: "failed",
      detail: `${status} ${String(field(body, "id") ?? "")}`.trim(),
      fix: `the token in ${entry.tokenEnvVar} was refused: create a bot access token (System Console > Integrations > Bot Accounts) and put it in ${entry.tokenEnvVar}`,
    },
  ];
};
