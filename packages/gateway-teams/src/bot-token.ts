// The outbound token: OAuth2 client credentials at <loginBaseUrl>/<tenantId>/oauth2/v2.0/token with
// scope https://api.botframework.com/.default, cached and fetched again 60 s before it expires.
import { GatewaySendError } from "@agentsvc/session-core";
import { jsonOrSendError } from "@agentsvc/webhook-kit";

export const EARLY_REFETCH_MS = 60_000;
export const CONNECTOR_SCOPE = "https://api.botframework.com/.default";

export class BotToken {
  #cached: { token: string; expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(
    private readonly tokenUrl: string,
    private readonly appId: string,
    private readonly appPassword: string,
    private readonly now: () => number = Date.now,
  ) {}

  async get(signal?: AbortSignal): Promise<string> {
    const cached = this.#cached;
    if (cached && this.now() < cached.expiresAt - EARLY_REFETCH_MS) return cached.token;
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
    const res = await fetch(this.tokenUrl, {
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
    // A wrong app id or password (400/401) never succeeds; the token service being down does.
    const body = await jsonOrSendError<{ access_token?: string; expires_in?: number }>(res, {
      platform: "teams",
      call: "token endpoint",
    });
    if (!body?.access_token) throw new GatewaySendError("teams: token endpoint sent no access_token");
    this.#cached = { token: body.access_token, expiresAt: this.now() + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }
}
