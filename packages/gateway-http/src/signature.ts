// The request signature of the http gateway:
//   X-Agentsvc-Timestamp: <unix seconds>
//   X-Agentsvc-Signature: v2=<hex HMAC-SHA256(secret, "<timestamp>." + "<METHOD> <target>\n" + <raw body>)>
// v2 binds every request to its method and target (path and query) as well as its exact body, so a
// signature cannot be moved to another resource, and two identical decision bodies for two
// requests sign differently. v1 (deprecated, accepted for one release) signed the raw body alone,
// or "<METHOD> <target>" when there was none. Checked before anything is parsed.
import { createHmac, timingSafeEqual } from "node:crypto";

export const TIMESTAMP_HEADER = "x-agentsvc-timestamp";
export const SIGNATURE_HEADER = "x-agentsvc-signature";
/** Accepted clock difference in either direction, against replay. */
export const TOLERANCE_SECONDS = 300;

export type SignatureScheme = "v1" | "v2";

export type VerifyFailure =
  | "no_secret"
  | "missing_header"
  | "bad_timestamp"
  | "stale_timestamp"
  | "bad_signature";

export type VerifyResult =
  | { ok: true; digest: string; scheme: SignatureScheme }
  | { ok: false; reason: VerifyFailure };

/** What a request signs: its method, its target (path and query, as sent) and its exact body. */
export interface SignedRequest {
  method: string;
  target: string;
  body?: Uint8Array | string;
}

export function signPayload(secret: string, timestamp: string | number, signed: Uint8Array | string): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestamp}.`);
  mac.update(signed);
  return mac.digest("hex");
}

const encoder = new TextEncoder();

function bytesOf(body: Uint8Array | string | undefined): Uint8Array {
  return typeof body === "string" ? encoder.encode(body) : (body ?? new Uint8Array());
}

/**
 * A serialized http(s) URL's request target, `pathname + search` as `URL` gives them, read off the
 * text: the server's request URLs are serialized already (a Request's url), and parsing one again
 * only to cut it was a URL parse a request. The path starts at the first `/` after the host; `#` and
 * `?` are percent-encoded in a serialized path and `#` in a serialized query, so the first `#` starts
 * the fragment and the first `?` the query; an empty query (`/a?`) is no search, as in `URL`.
 */
export function targetOf(href: string): string {
  const start = href.indexOf("/", href.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = href.indexOf("#", start);
  if (end < 0) end = href.length;
  if (href.indexOf("?", start) === end - 1) end--;
  return href.slice(start, end);
}

/** The v2 signed bytes: `"<METHOD> <target>\n"` followed by the raw body (empty without one). */
export function requestBytes(request: SignedRequest): Uint8Array {
  const head = encoder.encode(`${request.method.toUpperCase()} ${request.target}\n`);
  const body = bytesOf(request.body);
  const out = new Uint8Array(head.byteLength + body.byteLength);
  out.set(head);
  out.set(body, head.byteLength);
  return out;
}

/** The deprecated v1 signed bytes: the body, or `"<METHOD> <target>"` when there is none. */
function v1Bytes(request: SignedRequest): Uint8Array {
  const body = bytesOf(request.body);
  return body.byteLength > 0 ? body : encoder.encode(`${request.method.toUpperCase()} ${request.target}`);
}

/** Headers that sign `request` with scheme v2 (what a client sends). */
export function requestSignatureHeaders(
  secret: string,
  request: SignedRequest,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    "X-Agentsvc-Timestamp": String(nowSeconds),
    "X-Agentsvc-Signature": `v2=${signPayload(secret, nowSeconds, requestBytes(request))}`,
  };
}

/**
 * v1 headers over exactly `signed` (the body, or `"<METHOD> <target>"` without one). The gateway
 * signs its callbacks this way; for requests to the server it is deprecated in favour of
 * `requestSignatureHeaders`.
 */
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

interface HeaderInput {
  secret: string;
  timestamp: string | undefined | null;
  signature: string | undefined | null;
  nowSeconds?: number;
}

/** Timestamp and secret checks shared by both verifications. */
function precheck(input: HeaderInput): VerifyFailure | undefined {
  if (input.secret === "") return "no_secret";
  if (!input.timestamp || !input.signature) return "missing_header";
  if (!/^\d{1,12}$/.test(input.timestamp)) return "bad_timestamp";
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(input.timestamp)) > TOLERANCE_SECONDS) return "stale_timestamp";
  return undefined;
}

/** One `<scheme>=<hex digest>` value of the signature header, compiled once. */
const VALUE: Record<SignatureScheme, RegExp> = {
  v1: /^\s*v1=([0-9a-fA-F]{64})\s*$/,
  v2: /^\s*v2=([0-9a-fA-F]{64})\s*$/,
};

/** True when one of the header's `<scheme>=<hex>` values equals `hex`, compared in constant time. */
function listed(header: string, scheme: SignatureScheme, hex: string): boolean {
  const expected = Buffer.from(hex, "hex");
  const pattern = VALUE[scheme];
  let match = false;
  // Several values (comma-separated) allow a client to sign with an old and a new secret.
  for (const part of header.split(",")) {
    const m = pattern.exec(part);
    if (!m?.[1]) continue;
    // Equal-length digests; keep looping so timing does not reveal which part matched.
    if (timingSafeEqual(expected, Buffer.from(m[1], "hex"))) match = true;
  }
  return match;
}

/**
 * Verifies a request to the server: a `v2=` value over method, target and body; failing that, a
 * deprecated `v1=` value (the caller logs the deprecation). The digest (lower-case hex) names the
 * signed request whatever spelling carried it.
 */
export function verifyRequest(input: HeaderInput & { request: SignedRequest }): VerifyResult {
  const failure = precheck(input);
  if (failure) return { ok: false, reason: failure };
  const header = input.signature as string;
  const ts = input.timestamp as string;
  // A digest is computed only for a scheme the header carries (which one a client signs with is
  // no secret): a v1 client costs one HMAC, not two.
  if (header.includes("v2=")) {
    const v2 = signPayload(input.secret, ts, requestBytes(input.request));
    if (listed(header, "v2", v2)) return { ok: true, digest: v2, scheme: "v2" };
  }
  if (header.includes("v1=")) {
    const v1 = signPayload(input.secret, ts, v1Bytes(input.request));
    if (listed(header, "v1", v1)) return { ok: true, digest: v1, scheme: "v1" };
  }
  return { ok: false, reason: "bad_signature" };
}

/** Verifies a v1 signature over exactly `signed` (a receiver checking the gateway's callbacks). */
export function verifySignature(input: HeaderInput & { signed: Uint8Array }): VerifyResult {
  const failure = precheck(input);
  if (failure) return { ok: false, reason: failure };
  const hex = signPayload(input.secret, input.timestamp as string, input.signed);
  return listed(input.signature as string, "v1", hex)
    ? { ok: true, digest: hex, scheme: "v1" }
    : { ok: false, reason: "bad_signature" };
}
