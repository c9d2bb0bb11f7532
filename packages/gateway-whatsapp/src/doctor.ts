// `agentsvc doctor` for a whatsapp entry: GET /<version>/<phone-number-id> with the token, nothing
// sent (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account-to-number-current-status/).
import { type AdapterDoctor, callJson, field, secretOf, trimUrl } from "@agentsvc/config-schema/adapter";
import type { WhatsappEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as WhatsappEntry;
  const check = "whatsapp phone number";
  const token = secretOf(env, entry.accessTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const id = secretOf(env, entry.phoneNumberIdEnvVar, check);
  if (typeof id !== "string") return [id];
  const { status, body } = await callJson(
    `${trimUrl(entry.apiBaseUrl)}/${entry.apiVersion}/${encodeURIComponent(id)}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  if (status === 200)
    return [{ check, status: "ok", detail: `${String(field(body, "display_phone_number") ?? id)}` }];
  const error = field(body, "error");
  const code = field(error, "code");
  return [
    {
      check,
      status: "failed",
      detail: `${status} ${code ?? ""} ${String(field(error, "message") ?? "")}`.replace(/\s+/g, " ").trim(),
      fix:
        code === 190
          ? `${entry.accessTokenEnvVar} was refused: put a current system-user access token with whatsapp_business_messaging in it`
          : `check ${entry.phoneNumberIdEnvVar} (the phone number ID from WhatsApp > API Setup) and that ${entry.accessTokenEnvVar} may read it`,
    },
  ];
};
