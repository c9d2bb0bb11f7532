// `agentsvc doctor` for a teams entry: a client-credentials token for the bot's app registration,
// nothing sent (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication).
import { type AdapterDoctor, callJson, field, secretOf, trimUrl } from "@agentsvc/config-schema/adapter";
import type { TeamsEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as TeamsEntry;
  const check = "teams client-credentials token";
  const id = secretOf(env, entry.appIdEnvVar, check);
  if (typeof id !== "string") return [id];
  const password = secretOf(env, entry.appPasswordEnvVar, check);
  if (typeof password !== "string") return [password];
  const { status, body } = await callJson(
    `${trimUrl(entry.loginBaseUrl)}/${entry.tenantId}/oauth2/v2.0/token`,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: id,
        client_secret: password,
        scope: "https://api.botframework.com/.default",
      }),
    },
  );
  if (status === 200 && typeof field(body, "access_token") === "string")
    return [{ check, status: "ok", detail: `token for app ${id}` }];
  const code = String(field(body, "error") ?? status);
  return [
    {
      check,
      status: "failed",
      detail: `${status} ${code}: ${String(field(body, "error_description") ?? "").split("\n")[0]}`.trim(),
      fix: `check ${entry.appIdEnvVar} (the bot's Microsoft App ID) and ${entry.appPasswordEnvVar} (a current client secret of that app registration), and tenantId (${entry.tenantId})`,
    },
  ];
};
