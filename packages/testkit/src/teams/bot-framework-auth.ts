// The Bot Framework's identity side, faked: an OpenID configuration, a JWKS with `endorsements`,
// connector-signed JWTs (RS256, issuer https://api.botframework.com, `serviceurl` claim), and the
// OAuth2 client-credentials token endpoint a bot gets its outbound token from.
import { randomBytes } from "node:crypto";
import type { generateKeyPair, JWK } from "jose";

// jose is imported when a key or token is first made, not with the testkit: about 50 ms of CPU at
// each import of the package, which some 35 test files in processes of their own import (#45).
const jose = () => import("jose");

export const CONNECTOR_ISSUER = "https://api.botframework.com";
export const CONNECTOR_SCOPE = "https://api.botframework.com/.default";

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

export interface ConnectorKey {
  kid: string;
  privateKey: SigningKey;
  jwk: JWK & { endorsements: string[] };
}

export async function connectorKey(
  kid = `kid-${randomBytes(4).toString("hex")}`,
  endorsements = ["msteams"],
): Promise<ConnectorKey> {
  const { exportJWK, generateKeyPair } = await jose();
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, use: "sig", alg: "RS256", endorsements };
  return { kid, privateKey, jwk };
}

export interface TokenClaims {
  appId: string;
  /** The `serviceurl` claim; null leaves it out (a token a bot must refuse). */
  serviceUrl: string | null;
  issuer?: string;
  /** Seconds from now; negative for an expired token. Default 3600. */
  expiresIn?: number;
  notBeforeIn?: number;
  alg?: "RS256";
}

/** A JWT as the connector puts in `Authorization: Bearer` on its calls to a bot. */
export async function connectorToken(key: ConnectorKey, claims: TokenClaims): Promise<string> {
  const { SignJWT } = await jose();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims.serviceUrl === null ? {} : { serviceurl: claims.serviceUrl })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
    .setIssuer(claims.issuer ?? CONNECTOR_ISSUER)
    .setAudience(claims.appId)
    .setIssuedAt(now)
    .setNotBefore(now + (claims.notBeforeIn ?? -60))
    .setExpirationTime(now + (claims.expiresIn ?? 3600))
    .sign(key.privateKey);
}

/** Outbound access tokens issued by the fake token endpoint, with their expiry (ms epoch). */
export class IssuedTokens {
  readonly #tokens = new Map<string, number>();

  issue(lifetimeSeconds: number): string {
    const token = `bf-${randomBytes(12).toString("hex")}`;
    this.#tokens.set(token, Date.now() + lifetimeSeconds * 1000);
    return token;
  }

  /** Every token issued so far stops working (revoked or expired early on the service's side). */
  revokeAll(): void {
    this.#tokens.clear();
  }

  valid(authorization: string | undefined): boolean {
    const token = /^Bearer (.+)$/.exec(authorization ?? "")?.[1];
    const expires = token ? this.#tokens.get(token) : undefined;
    return expires !== undefined && expires > Date.now();
  }
}
