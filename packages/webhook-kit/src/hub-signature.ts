// The `X-Hub-Signature-256` construction Meta (WhatsApp) and GitHub both use: `sha256=` + hex
// HMAC-SHA256 of the exact raw body. Checked over the received bytes, before parsing, in constant time.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-hub-signature-256";

export type SignatureFailure = "no_secret" | "missing_header" | "malformed_header" | "mismatch";

export function hubSignature(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export function verifyHubSignature(
  secret: string,
  header: string | undefined,
  rawBody: Uint8Array,
): { ok: true } | { ok: false; reason: SignatureFailure } {
  if (secret === "") return { ok: false, reason: "no_secret" };
  if (!header) return { ok: false, reason: "missing_header" };
  const hex = /^sha256=([0-9a-f]{64})$/i.exec(header.trim())?.[1];
  if (!hex) return { ok: false, reason: "malformed_header" };
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  // Both sides are 32 bytes here, so timingSafeEqual never throws on length.
  return timingSafeEqual(expected, Buffer.from(hex, "hex"))
    ? { ok: true }
    : { ok: false, reason: "mismatch" };
}

/** Constant-time string equality (the handshake's verify token): equal-length digests of both sides are compared. */
export function safeEqualText(a: string, b: string): boolean {
  const x = createHmac("sha256", "compare").update(a).digest();
  const y = createHmac("sha256", "compare").update(b).digest();
  return timingSafeEqual(x, y);
}
