// The v1 request signature of the http gateway:
//   X-Agentsvc-Timestamp: <unix seconds>
//   X-Agentsvc-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>." + <signed bytes>)>
// The signed bytes are the exact raw request body; a request without a body (GET) signs its
// request target instead ("GET /interactions/req_1?after=3"), so a signature cannot be moved
// to another resource. Checked before anything is parsed.
import { createHmac, timingSafeEqual } from "node:crypto";

export const TIMESTAMP_HEADER = "x-agentsvc-timestamp";
export const SIGNATURE_HEADER = "x-agentsvc-signature";
/** Accepted clock difference in either direction, against replay. */
export const TOLERANCE_SECONDS = 300;

export type VerifyFailure =
  | "no_secret"
  | "missing_header"
  | "bad_timestamp"
  | "stale_timestamp"
  | "bad_signature";

export function signPayload(secret: string, timestamp: string | number, signed: Uint8Array | string): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestamp}.`);
  mac.update(signed);
  return mac.digest("hex");
}

/** Headers for a request whose signed bytes are `signed` (the body, or `"<METHOD> <target>"` without one). */
export function signatureHeaders(
  secret: string,
  signed: Uint8Array | string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    "X-Agentsvc-Timestamp": String(nowSeconds),
    "X-Agentsvc-Signature": `v1=${signPayload(secret, nowSeconds, signed)}`,
  };
}

export function verifySignature(input: {
  secret: string;
  timestamp: string | undefined | null;
  signature: string | undefined | null;
  signed: Uint8Array;
  nowSeconds?: number;
}): { ok: true; digest: string } | { ok: false; reason: VerifyFailure } {
  if (input.secret === "") return { ok: false, reason: "no_secret" };
  if (!input.timestamp || !input.signature) return { ok: false, reason: "missing_header" };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: "bad_timestamp" };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(input.timestamp)) > TOLERANCE_SECONDS)
    return { ok: false, reason: "stale_timestamp" };
  const hex = signPayload(input.secret, input.timestamp, input.signed);
  const expected = Buffer.from(hex, "hex");
  // Several `v1=` values (comma-separated) allow a client to sign with an old and a new secret.
  let match = false;
  for (const part of input.signature.split(",")) {
    const m = /^\s*v1=([0-9a-fA-F]{64})\s*$/.exec(part);
    if (!m?.[1]) continue;
    const given = Buffer.from(m[1], "hex");
    // Equal-length digests, compared in constant time; keep looping so timing does not reveal which part matched.
    if (timingSafeEqual(expected, given)) match = true;
  }
  // The digest (lower-case hex) names the signed request whatever spelling carried it: the replay
  // guard keys on it, so `V1=`/upper-case/repeated/extra-value spellings are the same signature.
  return match ? { ok: true, digest: hex } : { ok: false, reason: "bad_signature" };
}
