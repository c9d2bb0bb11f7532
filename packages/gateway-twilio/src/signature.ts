// Twilio's X-Twilio-Signature: base64 HMAC-SHA1 (auth token as key) of the full URL Twilio called
// (query string included, exactly as configured in its console) followed by every POST parameter
// as key immediately followed by value, sorted by key. Compared in constant time.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-twilio-signature";

export type SignatureFailure = "no_secret" | "missing_header" | "malformed_header" | "mismatch";

export function signatureBase(url: string, params: Iterable<[string, string]>): string {
  const sorted = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  let base = url;
  for (const [key, value] of sorted) base += key + value;
  return base;
}

export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  return createHmac("sha1", authToken).update(signatureBase(url, params), "utf8").digest("base64");
}

export function verifyTwilioSignature(
  authToken: string,
  header: string | undefined,
  url: string,
  params: Iterable<[string, string]>,
): { ok: true } | { ok: false; reason: SignatureFailure } {
  if (authToken === "") return { ok: false, reason: "no_secret" };
  if (!header) return { ok: false, reason: "missing_header" };
  const given = /^[A-Za-z0-9+/]{27}=$/.test(header.trim()) ? Buffer.from(header.trim(), "base64") : undefined;
  if (given?.length !== 20) return { ok: false, reason: "malformed_header" };
  const expected = createHmac("sha1", authToken).update(signatureBase(url, params), "utf8").digest();
  return timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: "mismatch" };
}
