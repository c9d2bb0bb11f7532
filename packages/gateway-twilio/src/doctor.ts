// `agentsvc doctor` for a twilio entry: GET /2010-04-01/Accounts/<sid>.json with HTTP Basic, nothing
// sent (https://www.twilio.com/docs/iam/api/account#fetch-an-account-resource).
import { type AdapterDoctor, callJson, field, secretOf, trimUrl } from "@agentsvc/config-schema/adapter";
import type { TwilioEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as TwilioEntry;
  const check = "twilio account";
  const sid = secretOf(env, entry.accountSidEnvVar, check);
  if (typeof sid !== "string") return [sid];
  const token = secretOf(env, entry.authTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const { status, body } = await callJson(
    `${trimUrl(entry.apiBaseUrl)}/2010-04-01/Accounts/${encodeURIComponent(sid)}.json`,
    { headers: { authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString("base64")}` } },
  );
  if (status === 200)
    return [{ check, status: "ok", detail: `${sid} (${String(field(body, "status") ?? "?")})` }];
  return [
    {
      check,
      status: "failed",
      detail: `${status} ${String(field(body, "code") ?? "")} ${String(field(body, "message") ?? "")}`
        .replace(/\s+/g, " ")
        .trim(),
      fix: `check ${entry.accountSidEnvVar} (AC...) and ${entry.authTokenEnvVar} (the account's current Auth Token, Console > Account info)`,
    },
  ];
};
