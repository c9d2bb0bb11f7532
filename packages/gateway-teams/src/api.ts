// The connector's REST side. Outbound token: OAuth2 client credentials at
// <loginBaseUrl>/<tenantId>/oauth2/v2.0/token with scope https://api.botframework.com/.default, cached
// and fetched again 60 s before it expires. Conversation activities: POST
// <serviceUrl>v3/conversations/<id>/activities for a new message, PUT .../activities/<activityId> to
// replace one (the decided card). Failures are classified once, by session-core's sendFailure.
import {
  type FailureFacts,
  fetchForSend,
  GatewaySendError,
  type PlatformAnswer,
  type PlatformRule,
  sendFailure,
} from "@agentsvc/adapter-kit";

export const EARLY_REFETCH_MS = 60_000;
export const CONNECTOR_SCOPE = "https://api.botframework.com/.default";

/**
 * Entra ID refuses bad app credentials with 401 `invalid_client` (wrong secret) or 400
 * `unauthorized_client` (unknown app id, AADSTS700016): both mean the configured credentials are wrong.
 */
const tokenRule: PlatformRule = (facts) =>
  facts.code === "invalid_client" || facts.code === "unauthorized_client"
    ? { kind: "credentials" }
    : undefined;

/** The connector answers 401 to a token it no longer takes (expired early, rotated): a fresh one is fetched and the piece retried. */
const connectorRule: PlatformRule = (facts) => (facts.status === 401 ? { kind: "retry" } : undefined);

export class BotToken {
  #cached: { token: string; expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;
  readonly #now: () => number;
  readonly #envVar: string | undefined;

  constructor(
    private readonly tokenUrl: string,
    private readonly appId: string,
    private readonly appPassword: string,
    options: { envVar?: string; now?: () => number } = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#envVar = options.envVar;
  }

  async get(signal?: AbortSignal): Promise<string> {
    const cached = this.#cached;
    if (cached && this.#now() < cached.expiresAt - EARLY_REFETCH_MS) return cached.token;
    this.#pending ??= this.#fetch(signal).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** The connector refused the token: forget it so the next call fetches a new one. */
  invalidate(): void {
    this.#cached = undefined;
  }

  async #fetch(signal?: AbortSignal): Promise<string> {
    const res = await call("token endpoint", this.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: this.appId,
        client_secret: this.appPassword,
        scope: CONNECTOR_SCOPE,
      }).toString(),
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    const body = parse<{ access_token?: string; expires_in?: number; error?: string }>(text);
    if (!res.ok) {
      const facts: FailureFacts = {
        status: res.status,
        detail: text,
        ...(body?.error ? { code: body.error } : {}),
      };
      throw sendFailure(facts, {
        platform: "teams",
        call: "token endpoint",
        platformRule: tokenRule,
        ...(this.#envVar ? { envVar: this.#envVar } : {}),
      });
    }
    if (!body?.access_token) throw new GatewaySendError("teams: token endpoint sent no access_token");
    this.#cached = { token: body.access_token, expiresAt: this.#now() + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }
}

export async function connectorCall(
  token: BotToken,
  serviceUrl: string,
  conversationId: string,
  activity: Record<string, unknown>,
  options: {
    activityId?: string;
    signal?: AbortSignal;
    /** For the token fetch, shared by concurrent calls: one caller's own abort must not fail the others. */
    tokenSignal?: AbortSignal;
  } = {},
): Promise<string | undefined> {
  const base = `${serviceUrl.replace(/\/+$/, "")}/v3/conversations/${encodeURIComponent(conversationId)}/activities`;
  const url = options.activityId ? `${base}/${encodeURIComponent(options.activityId)}` : base;
  const res = await call("connector call", url, {
    method: options.activityId ? "PUT" : "POST",
    headers: {
      authorization: `Bearer ${await token.get(options.tokenSignal ?? options.signal)}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(activity),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  if (!res.ok) {
    if (res.status === 401) token.invalidate();
    const error = parse<{ error?: { code?: unknown; message?: unknown } }>(text)?.error;
    const code = typeof error?.code === "string" ? error.code : undefined;
    const failure = sendFailure(
      {
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        detail: text,
        ...(code ? { code } : {}),
      },
      { platform: "teams", call: "connector call", platformRule: connectorRule },
    );
    refusals.set(failure, { code, message: typeof error?.message === "string" ? error.message : undefined });
    throw failure;
  }
  return parse<{ id?: string }>(text)?.id;
}

/** The connector's `{error: {code, message}}` of a refused call, kept with the error it became. */
const refusals = new WeakMap<object, { code: string | undefined; message: string | undefined }>();

/** The connector's error code and message behind a failed connectorCall, when it sent them. */
export function connectorRefusal(
  err: unknown,
): { code: string | undefined; message: string | undefined } | undefined {
  return typeof err === "object" && err !== null ? refusals.get(err) : undefined;
}

/**
 * One call through the kit's keep-alive transport (a redirect is an answer, not followed), a network
 * failure classified (retried) instead of thrown raw; an abort by the init's signal thrown as it is.
 */
function call(what: string, url: string, init: RequestInit): Promise<PlatformAnswer> {
  return fetchForSend(url, init, { platform: "teams", call: what });
}

function parse<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
