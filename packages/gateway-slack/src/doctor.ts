// `agentsvc doctor` for a slack entry: auth.test with the bot token and apps.connections.open with
// the app token, nothing sent (https://api.slack.com/methods/auth.test,
// https://api.slack.com/methods/apps.connections.open: HTTP 200 with ok:false, error invalid_auth).
import {
  type AdapterDoctor,
  callJson,
  type DoctorResult,
  field,
  secretOf,
  trimUrl,
} from "@agentsvc/config-schema/adapter";
import type { SlackEntry } from "./schema.js";

async function method(base: string, name: string, token: string) {
  const { body } = await callJson(`${trimUrl(base)}/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
  });
  return { ok: field(body, "ok") === true, error: String(field(body, "error") ?? ""), body };
}

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as SlackEntry;
  const out: DoctorResult[] = [];
  const bot = secretOf(env, entry.botTokenEnvVar, "slack auth.test");
  if (typeof bot !== "string") out.push(bot);
  else {
    const r = await method(entry.apiBaseUrl, "auth.test", bot);
    out.push(
      r.ok
        ? {
            check: "slack auth.test",
            status: "ok",
            detail: `${String(field(r.body, "user") ?? "?")} in ${String(field(r.body, "team") ?? "?")}`,
          }
        : {
            check: "slack auth.test",
            status: "failed",
            detail: r.error,
            fix: `${entry.botTokenEnvVar} must hold the app's Bot User OAuth Token (xoxb-..., OAuth & Permissions); reinstall the app if it was revoked`,
          },
    );
  }
  const app = secretOf(env, entry.appTokenEnvVar, "slack apps.connections.open");
  if (typeof app !== "string") out.push(app);
  else {
    const r = await method(entry.apiBaseUrl, "apps.connections.open", app);
    out.push(
      r.ok
        ? { check: "slack apps.connections.open", status: "ok", detail: "Socket Mode URL granted" }
        : {
            check: "slack apps.connections.open",
            status: "failed",
            detail: r.error,
            fix: `${entry.appTokenEnvVar} must hold an app-level token (xapp-...) with connections:write, and Socket Mode must be on (Basic Information > App-Level Tokens)`,
          },
    );
  }
  return out;
};
