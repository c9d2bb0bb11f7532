// `agentsvc doctor` for a telegram entry: getMe with the token, nothing sent
// (https://core.telegram.org/bots/api#getme; 401 Unauthorized for a bad token).
import { type AdapterDoctor, callJson, field, secretOf, trimUrl } from "@agentsvc/config-schema/adapter";
import type { TelegramEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as TelegramEntry;
  const check = "telegram getMe";
  const token = secretOf(env, entry.botTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const { status, body } = await callJson(`${trimUrl(entry.apiBaseUrl)}/bot${token}/getMe`);
  const user = field(body, "result");
  if (status === 200 && field(body, "ok") === true)
    return [{ check, status: "ok", detail: `bot @${String(field(user, "username") ?? "?")}` }];
  return [
    {
      check,
      status: "failed",
      detail: `${status} ${String(field(body, "description") ?? "")}`.trim(),
      fix: `the token in ${entry.botTokenEnvVar} was refused: copy the bot's token from @BotFather (/token) into ${entry.botTokenEnvVar}`,
    },
  ];
};
