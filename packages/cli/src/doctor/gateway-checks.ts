// Live credential checks, one cheap authenticated call per gateway (never a message sent). Each
// failure says what to fix. Platform facts:
//   Telegram getMe: https://core.telegram.org/bots/api#getme (401 Unauthorized for a bad token)
//   Slack auth.test / apps.connections.open: https://api.slack.com/methods/auth.test,
//     https://api.slack.com/methods/apps.connections.open (HTTP 200 with ok:false, error invalid_auth)
//   Discord GET /users/@me with `Authorization: Bot <token>`: https://discord.com/developers/docs/resources/user#get-current-user,
//     GET /gateway/bot and GET /applications/@me (flags): https://discord.com/developers/docs/resources/application#get-current-application
//   Teams client credentials: https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication
//   GitHub GET /user: https://docs.github.com/en/rest/users/users#get-the-authenticated-user, and
//     GET /repos/{owner}/{repo} for the repository approvalDestination names
//   WhatsApp GET /<version>/<phone-number-id>: https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account-to-number-current-status/
//   Twilio GET /2010-04-01/Accounts/<sid>.json (HTTP Basic): https://www.twilio.com/docs/iam/api/account#fetch-an-account-resource
//   signal-cli HTTP daemon GET /api/v1/check: https://github.com/AsamK/signal-cli/blob/master/man/signal-cli.1.adoc (daemon --http)
import type { PushGatewayEntry } from "@agentsvc/config-schema";
import { checkEmail } from "./email-checks.js";

export interface CheckResult {
  check: string;
  status: "ok" | "failed";
  detail: string;
  /** What to do about a failure. */
  fix?: string;
}

type Env = Record<string, string | undefined>;
const TIMEOUT_MS = 10_000;

/** The value of a variable, or a failed result naming it. */
function secret(env: Env, name: string, check: string): string | CheckResult {
  const value = env[name];
  if (value === undefined || value.trim() === "")
    return {
      check,
      status: "failed",
      detail: `${name} is not set`,
      fix: `set ${name} in the service's environment`,
    };
  return value;
}

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body };
}

const trim = (url: string) => url.replace(/\/+$/, "");
const field = (body: unknown, key: string): unknown =>
  body && typeof body === "object" ? (body as Record<string, unknown>)[key] : undefined;

async function telegram(
  entry: Extract<PushGatewayEntry, { type: "telegram" }>,
  env: Env,
): Promise<CheckResult[]> {
  const check = "telegram getMe";
  const token = secret(env, entry.botTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const { status, body } = await call(`${trim(entry.apiBaseUrl)}/bot${token}/getMe`);
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
}

async function slackMethod(
  base: string,
  method: string,
  token: string,
): Promise<{ ok: boolean; error: string; body: unknown }> {
  const { body } = await call(`${trim(base)}/${method}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
  });
  return { ok: field(body, "ok") === true, error: String(field(body, "error") ?? ""), body };
}

async function slack(entry: Extract<PushGatewayEntry, { type: "slack" }>, env: Env): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  const bot = secret(env, entry.botTokenEnvVar, "slack auth.test");
  if (typeof bot !== "string") out.push(bot);
  else {
    const r = await slackMethod(entry.apiBaseUrl, "auth.test", bot);
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
  const app = secret(env, entry.appTokenEnvVar, "slack apps.connections.open");
  if (typeof app !== "string") out.push(app);
  else {
    const r = await slackMethod(entry.apiBaseUrl, "apps.connections.open", app);
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
}

// Discord's privileged intent bits: MESSAGE_CONTENT in Identify, and the application flags that say
// the bot may use it (https://discord.com/developers/docs/events/gateway#privileged-intents,
// https://discord.com/developers/docs/resources/application#application-object-application-flags).
const MESSAGE_CONTENT_INTENT = 1 << 15;
const GATEWAY_MESSAGE_CONTENT = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

async function discord(
  entry: Extract<PushGatewayEntry, { type: "discord" }>,
  env: Env,
): Promise<CheckResult[]> {
  const check = "discord /users/@me";
  const token = secret(env, entry.botTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const get = (path: string) =>
    call(`${trim(entry.apiBaseUrl)}${path}`, { headers: { authorization: `Bot ${token}` } });
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
  const out: CheckResult[] = [
    { check, status: "ok", detail: `bot ${String(field(body, "username") ?? "?")}` },
  ];
  // GET /gateway/bot (https://discord.com/developers/docs/events/gateway#get-gateway-bot): the URL
  // to connect to and how many session starts are left today.
  const gw = await get("/gateway/bot");
  const limit = field(gw.body, "session_start_limit");
  const remaining = field(limit, "remaining");
  out.push(
    gw.status === 200 && remaining !== 0
      ? {
          check: "discord /gateway/bot",
          status: "ok",
          detail: `${String(field(gw.body, "shards") ?? "?")} shard(s), ${String(remaining ?? "?")} session starts left`,
        }
      : {
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
        },
  );
  if ((entry.intents & MESSAGE_CONTENT_INTENT) === 0) return out;
  const app = await get("/applications/@me");
  const flags = Number(field(app.body, "flags") ?? 0);
  const allowed = (flags & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED)) !== 0;
  out.push(
    app.status === 200 && allowed
      ? { check: "discord message content intent", status: "ok", detail: "allowed for this application" }
      : {
          check: "discord message content intent",
          status: "failed",
          detail:
            app.status === 200
              ? `the application's flags (${flags}) allow no message content`
              : `${app.status} ${String(field(app.body, "message") ?? "")}`.trim(),
          fix: "turn on Message Content Intent (Developer Portal > Bot > Privileged Gateway Intents; verified bots in 100+ servers apply for it), or drop 32768 from the entry's intents",
        },
  );
  return out;
}

async function teams(entry: Extract<PushGatewayEntry, { type: "teams" }>, env: Env): Promise<CheckResult[]> {
  const check = "teams client-credentials token";
  const id = secret(env, entry.appIdEnvVar, check);
  if (typeof id !== "string") return [id];
  const password = secret(env, entry.appPasswordEnvVar, check);
  if (typeof password !== "string") return [password];
  const { status, body } = await call(`${trim(entry.loginBaseUrl)}/${entry.tenantId}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: id,
      client_secret: password,
      scope: "https://api.botframework.com/.default",
    }),
  });
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
}

/** The repositories the entry names (its approvalDestination, `repo:<owner>/<repo>:...`). */
function githubRepositories(entry: Extract<PushGatewayEntry, { type: "github" }>): string[] {
  const m = /^repo:([^/:\s]+\/[^/:\s]+):/.exec(entry.approvalDestination ?? "");
  return m?.[1] ? [m[1]] : [];
}

async function github(
  entry: Extract<PushGatewayEntry, { type: "github" }>,
  env: Env,
): Promise<CheckResult[]> {
  const check = "github GET /user";
  const token = secret(env, entry.tokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const get = (path: string) =>
    call(`${trim(entry.apiBaseUrl)}${path}`, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/vnd.github+json",
        "user-agent": "agentsvc-doctor",
      },
    });
  const { status, body } = await get("/user");
  if (status !== 200)
    return [
      {
        check,
        status: "failed",
        detail: `${status} ${String(field(body, "message") ?? "")}`.trim(),
        fix: `${entry.tokenEnvVar} must hold a current token (a fine-grained token or GitHub App installation token with issues and pull requests write)`,
      },
    ];
  const out: CheckResult[] = [
    { check, status: "ok", detail: `token of ${String(field(body, "login") ?? "?")}` },
  ];
  // GET /repos/{owner}/{repo} (https://docs.github.com/en/rest/repos/repos#get-a-repository):
  // GitHub answers 404, not 403, for a private repository the token cannot see.
  for (const repo of githubRepositories(entry)) {
    const r = await get(`/repos/${repo}`);
    out.push(
      r.status === 200
        ? { check: `github repository ${repo}`, status: "ok", detail: `the token can read ${repo}` }
        : {
            check: `github repository ${repo}`,
            status: "failed",
            detail: `${r.status} ${String(field(r.body, "message") ?? "")}`.trim(),
            fix:
              r.status === 404
                ? `the token in ${entry.tokenEnvVar} cannot see ${repo}: add the repository to the token's repository access (or install the GitHub App on it), or fix approvalDestination`
                : `GitHub answered ${r.status} for ${repo}: check ${entry.tokenEnvVar}`,
          },
    );
  }
  return out;
}

async function whatsapp(
  entry: Extract<PushGatewayEntry, { type: "whatsapp" }>,
  env: Env,
): Promise<CheckResult[]> {
  const check = "whatsapp phone number";
  const token = secret(env, entry.accessTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const id = secret(env, entry.phoneNumberIdEnvVar, check);
  if (typeof id !== "string") return [id];
  const { status, body } = await call(
    `${trim(entry.apiBaseUrl)}/${entry.apiVersion}/${encodeURIComponent(id)}`,
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
}

async function twilio(
  entry: Extract<PushGatewayEntry, { type: "twilio" }>,
  env: Env,
): Promise<CheckResult[]> {
  const check = "twilio account";
  const sid = secret(env, entry.accountSidEnvVar, check);
  if (typeof sid !== "string") return [sid];
  const token = secret(env, entry.authTokenEnvVar, check);
  if (typeof token !== "string") return [token];
  const { status, body } = await call(
    `${trim(entry.apiBaseUrl)}/2010-04-01/Accounts/${encodeURIComponent(sid)}.json`,
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
}

async function signal(entry: Extract<PushGatewayEntry, { type: "signal" }>): Promise<CheckResult[]> {
  const check = "signal-cli daemon /api/v1/check";
  try {
    const { status } = await call(`${trim(entry.httpUrl)}/api/v1/check`);
    if (status === 200) return [{ check, status: "ok", detail: `daemon answers at ${entry.httpUrl}` }];
    return [
      {
        check,
        status: "failed",
        detail: `HTTP ${status}`,
        fix: `run signal-cli daemon --http at ${entry.httpUrl}`,
      },
    ];
  } catch (error) {
    return [
      {
        check,
        status: "failed",
        detail: (error as Error).message,
        fix: `start signal-cli daemon --http (httpUrl is ${entry.httpUrl})`,
      },
    ];
  }
}

/** The live checks of one gateway entry; a network error is a failed check, never a crash. */
export async function checkGateway(
  entry: PushGatewayEntry,
  env: Env,
  projectDir: string,
): Promise<CheckResult[]> {
  try {
    switch (entry.type) {
      case "telegram":
        return await telegram(entry, env);
      case "slack":
        return await slack(entry, env);
      case "discord":
        return await discord(entry, env);
      case "teams":
        return await teams(entry, env);
      case "signal":
        return await signal(entry);
      case "github":
        return await github(entry, env);
      case "whatsapp":
        return await whatsapp(entry, env);
      case "twilio":
        return await twilio(entry, env);
      case "email":
        return await checkEmail(entry, env, projectDir);
    }
  } catch (error) {
    return [
      {
        check: `${entry.type} credentials`,
        status: "failed",
        detail: (error as Error).message,
        fix: `the ${entry.type} API did not answer: check the network and the entry's base URL`,
      },
    ];
  }
}
