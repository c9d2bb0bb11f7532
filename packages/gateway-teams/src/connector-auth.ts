// Inbound authentication: the connector's bearer JWT, RS256 against the key set its OpenID
// configuration publishes (fetched once per gateway instance and cached: a key rotation needs a
// restart), `iss` = https://api.botframework.com, `aud` = the app id, 5 minutes of clock skew, the
// key endorsed for the activity's channel, and the `serviceurl` claim equal to the activity's.
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from "jose";

export const CONNECTOR_ISSUER = "https://api.botframework.com";
export const CLOCK_SKEW_SECONDS = 300;

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
}

type Keys = { set: ReturnType<typeof createLocalJWKSet>; raw: JSONWebKeySet };

const trimSlash = (url: string) => url.replace(/\/+$/, "");

export class ConnectorAuth {
  #keys: Promise<Keys> | undefined;

  constructor(
    private readonly openIdMetadataUrl: string,
    private readonly appId: string,
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
      const { payload } = await jwtVerify(token, keys.set, {
        issuer: CONNECTOR_ISSUER,
        audience: this.appId,
        algorithms: ["RS256"],
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ["exp"],
      });
      const { kid } = decodeProtectedHeader(token);
      const key = keys.raw.keys.find((k) => k.kid === kid) as { endorsements?: unknown } | undefined;
      return {
        ok: true,
        token: {
          serviceUrl: typeof payload.serviceurl === "string" ? payload.serviceurl : undefined,
          endorsements: Array.isArray(key?.endorsements) ? key.endorsements.map(String) : undefined,
        },
      };
    } catch (err) {
      return { ok: false, reason: "bad_token", detail: (err as Error).message };
    }
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

  /** Once per instance; a failed fetch is not cached, so the next request tries again. */
  #loadKeys(): Promise<Keys> {
    this.#keys ??= fetchKeys(this.openIdMetadataUrl).catch((err: unknown) => {
      this.#keys = undefined;
      throw err;
    });
    return this.#keys;
  }
}

async function fetchKeys(openIdMetadataUrl: string): Promise<Keys> {
  const config = await getJson(openIdMetadataUrl);
  if (typeof config.jwks_uri !== "string") throw new Error("OpenID configuration has no jwks_uri");
  const raw = (await getJson(config.jwks_uri)) as unknown as JSONWebKeySet;
  if (!Array.isArray(raw.keys)) throw new Error("key set has no keys");
  return { set: createLocalJWKSet(raw), raw };
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}
