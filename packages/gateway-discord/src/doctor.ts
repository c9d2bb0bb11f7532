// `agentsvc doctor` for a discord entry, nothing sent:
//   GET /users/@me with `Authorization: Bot <token>`: https://discord.com/developers/docs/resources/user#get-current-user
//   GET /gateway/bot: https://discord.com/developers/docs/events/gateway#get-gateway-bot
//   GET /applications/@me (flags): https://discord.com/developers/docs/resources/application#get-current-application
import {
  type AdapterDoctor,
  callJson,
  type DoctorResult,
  field,
  secretOf,
  trimUrl,
} from "@agentsvc/config-schema/adapter";
import type { DiscordEntry } from "./schema.js";

// MESSAGE_CONTENT in Identify, and the application flags that say the bot may use it
// (https://discord.com/developers/docs/events/gateway#privileged-intents,
// https://discord.com/developers/docs/resources/application#application-object-application-flags).
const MESSAGE_CONTENT_INTENT = 1 << 15;
const GATEWAY_MESSAGE_CONTENT = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

function gatewayCheck(gw: { status: number; body: unknown }): DoctorResult {
  const limit = field(gw.body, "session_start_limit");
  const remaining = field(limit, "remaining");
  if (gw.status === 200 && remaining !== 0)
    return {
      check: "discord /gateway/bot",
      status: "ok",
      detail: `${String(field(gw.body, "shards") ?? "?")} shard(s), ${String(remaining ?? "?")} session starts left`,
    };
  return {
    check: "discord /gateway/bot",
    status: "failed",
    detail:
      gw.status === 200
        ? `no session starts left (reset in ${Math.ceil(Number(field(limit, "reset_after") ?? 0) / 60_000)} min)`
        : `${gw.status} ${String(field(gw.body, "message") ?? "")}`.trim(),
    fix:
      gw.status === 200
        ? "the bot used up its daily gateway connections (a restart loop?): wait for the reset"
        : "Discord did not give a gateway URL: check apiBaseUrl and the bot's token",
  };
}

function intentCheck(app: { status: number; body: unknown }): DoctorResult {
  const flags = Number(field(app.body, "flags") ?? 0);
  const allowed = (flags & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED)) !== 0;
  if (app.status === 200 && allowed)
    return { check: "discord message content intent", status: "ok", detail: "allowed for this application" };
  return {
    check: "discord message content intent",
    status: "failed",
    detail:
      app.status === 200
        ? `the application's flags (${flags}) allow no message content`
        : `${app.status} ${String(field(app.body, "message") ?? "")}`.trim(),
    fix: "turn on Message Content Intent (Developer Portal > Bot > Privileged Gateway Intents; verified bots in 100+ servers apply for it), or drop 32768 from the entry's intents",
  };
}

export const doctor: AdapterDoctor = async (raw, { env }) => {
  const entry = raw as unknown as DiscordEntry;
  const check = "discord /users/@me";
  const token = secretOf(env, entry.botTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const get = (path: string) =>
    callJson(`${trimUrl(entry.apiBaseUrl)}${path}`, { headers: { authorization: `Bot ${token}` } });
  const { status, body } = await get("/users/@me");
  if (status !== 200)
    return [
      {
        check,
        status: "failed",
        detail: `${status} ${String(field(body, "message") ?? "")}`.trim(),
        fix: `${entry.botTokenEnvVar} must hold the bot's token (Developer Portal > Bot > Reset Token)`,
      },
    ];
  const out: DoctorResult[] = [
    { check, status: "ok", detail: `bot ${String(field(body, "username") ?? "?")}` },
    gatewayCheck(await get("/gateway/bot")),
  ];
  if ((entry.intents & MESSAGE_CONTENT_INTENT) !== 0) out.push(intentCheck(await get("/applications/@me")));
  return out;
};
