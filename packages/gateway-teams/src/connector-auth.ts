// Inbound authentication: the connector's bearer JWT, RS256 against the key set its OpenID
// configuration names, `iss` = https://api.botframework.com, `aud` = the app id, 5 minutes of clock
// skew, the key endorsed for the activity's channel, and the `serviceurl` claim equal to the
// activity's. Microsoft rotates the signing keys while bots run, so the key set is jose's remote set:
// an unknown `kid` refetches it (at most once per KEY_REFETCH_COOLDOWN_MS, so a flood of unknown kids
// costs one fetch) and it is refetched when older than KEY_SET_MAX_AGE_MS.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";

export const CONNECTOR_ISSUER = "https://api.botframework.com";
export const CLOCK_SKEW_SECONDS = 300;
/** An unknown `kid` refetches the key set at most this often. */
export const KEY_REFETCH_COOLDOWN_MS = 5 * 60_000;
/** The key set is fetched again when older than this, whatever the kids. */
export const KEY_SET_MAX_AGE_MS = 24 * 60 * 60_000;

export type AuthFailure =
  | "no_app_id"
  | "missing_token"
  | "keys_unavailable"
  | "bad_token"
  | "not_endorsed"
  | "service_url_mismatch";

export interface VerifiedToken {
  serviceUrl: string | undefined;
  endorsements: string[] | undefined;
  /** Seconds the token is valid for (`exp` - `iat`, or `nbf`); 3600 when neither is given. */
  lifetimeSeconds: number;
}

type Keys = ReturnType<typeof createRemoteJWKSet>;

const trimSlash = (url: string) => url.replace(/\/+$/, "");

export class ConnectorAuth {
  #keys: Promise<Keys> | undefined;
  /** When fetching the key set last failed: for a cooldown the cached keys are used without asking again. */
  #failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly openIdMetadataUrl: string,
    private readonly appId: string,
    /** Told once per failed refresh that the keys fetched last are used meanwhile. */
    private readonly onStaleKeys: (detail: string) => void = () => {},
  ) {}

  /** Checks the token alone (before the body is read); `matches` then ties it to the activity. */
  async verify(
    authorization: string | undefined,
  ): Promise<{ ok: true; token: VerifiedToken } | { ok: false; reason: AuthFailure; detail?: string }> {
    if (this.appId === "") return { ok: false, reason: "no_app_id" };
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (!token) return { ok: false, reason: "missing_token" };
    let keys: Keys;
    try {
      keys = await this.#loadKeys();
    } catch (err) {
      return { ok: false, reason: "keys_unavailable", detail: (err as Error).message };
    }
    try {
      const { payload } = await jwtVerify(token, this.#getKey(keys), {
        issuer: CONNECTOR_ISSUER,
        audience: this.appId,
        algorithms: ["RS256"],
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ["exp"],
      });
      const { kid } = decodeProtectedHeader(token);
      const key = keys.jwks()?.keys.find((k) => k.kid === kid) as { endorsements?: unknown } | undefined;
      const issued = payload.iat ?? payload.nbf;
      return {
        ok: true,
        token: {
          serviceUrl: typeof payload.serviceurl === "string" ? payload.serviceurl : undefined,
          endorsements: Array.isArray(key?.endorsements) ? key.endorsements.map(String) : undefined,
          lifetimeSeconds: issued !== undefined && payload.exp ? payload.exp - issued : 3600,
        },
      };
    } catch (err) {
      return { ok: false, reason: keySetFailed(err) ? "keys_unavailable" : "bad_token", detail: String(err) };
    }
  }

  /**
   * jose's remote set, except when the key endpoint is down: then the keys fetched last still verify
   * (for KEY_REFETCH_COOLDOWN_MS before it is asked again), so an outage at the daily refresh does
   * not refuse every activity. An unknown kid meanwhile is refused.
   */
  #getKey(keys: Keys): JWTVerifyGetKey {
    return async (header, token) => {
      const cached = keys.jwks();
      if (cached && Date.now() - this.#failedAt < KEY_REFETCH_COOLDOWN_MS)
        return createLocalJWKSet(cached)(header, token);
      try {
        return await keys(header, token);
      } catch (err) {
        if (!cached || !keySetFailed(err)) throw err;
        this.#failedAt = Date.now();
        this.onStaleKeys(String(err));
        return createLocalJWKSet(cached)(header, token);
      }
    };
  }

  /** The key must be endorsed for the activity's channel and the `serviceurl` claim must equal the activity's. */
  matches(
    token: VerifiedToken,
    activity: { serviceUrl?: unknown; channelId?: unknown },
  ): AuthFailure | undefined {
    const channel = typeof activity.channelId === "string" ? activity.channelId : "";
    if (token.endorsements && channel !== "" && !token.endorsements.includes(channel)) return "not_endorsed";
    const given = typeof activity.serviceUrl === "string" ? activity.serviceUrl : undefined;
    if (!token.serviceUrl || !given || trimSlash(token.serviceUrl) !== trimSlash(given))
      return "service_url_mismatch";
    return undefined;
  }

  /** The OpenID configuration is read once (for `jwks_uri`); jose keeps the key set fresh from then on. */
  #loadKeys(): Promise<Keys> {
    this.#keys ??= keySet(this.openIdMetadataUrl).catch((err: unknown) => {
      this.#keys = undefined;
      throw err;
    });
    return this.#keys;
  }
}

/** A key set that could not be fetched or read is not the token's fault (it is reported apart). */
function keySetFailed(err: unknown): boolean {
  if (!(err instanceof joseErrors.JOSEError)) return true; // the network
  return ["ERR_JOSE_GENERIC", "ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"].includes(err.code);
}

async function keySet(openIdMetadataUrl: string): Promise<Keys> {
  const config = await getJson(openIdMetadataUrl);
  if (typeof config.jwks_uri !== "string") throw new Error("OpenID configuration has no jwks_uri");
  return createRemoteJWKSet(new URL(config.jwks_uri), {
    cooldownDuration: KEY_REFETCH_COOLDOWN_MS,
    cacheMaxAge: KEY_SET_MAX_AGE_MS,
    timeoutDuration: 10_000,
  });
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}
