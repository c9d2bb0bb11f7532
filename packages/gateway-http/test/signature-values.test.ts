// The signature's values at their edges (signature.ts, no server): the digest is the HMAC the header
// comment documents (a receiver can compute it by hand), bound to its timestamp; the timestamp is
// whole seconds, accepted up to exactly 300 s away; a bodiless v1 request signs "<METHOD> <target>";
// each header value is one `<scheme>=<64 hex>` and nothing around it; the result names the scheme
// that verified. Found by `pnpm mutate gateway-http src/signature.ts` (#45): the tests signed and
// verified with the same code and the same defaults, so a digest without its timestamp, an
// unanchored pattern, or a clock a thousand times off passed them.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  requestBytes,
  requestSignatureHeaders,
  signatureHeaders,
  signPayload,
  verifyRequest,
  verifySignature,
} from "../src/index.js";

const SECRET = "k3y";
const TS = 1_700_000_000;
const GET = { method: "GET", target: "/gateways/hooks/threads/t/messages?after=3" };
const POST = { method: "POST", target: "/interactions/r1/decisions", body: '{"decision":"approve"}' };

/** HMAC-SHA256(secret, "<timestamp>." + signed) in hex, as the header comment of signature.ts documents it. */
const documented = (timestamp: number | string, signed: string) =>
  createHmac("sha256", SECRET).update(`${timestamp}.${signed}`).digest("hex");

const verify = (signature: string, request: typeof GET | typeof POST = POST, timestamp = String(TS)) =>
  verifyRequest({ secret: SECRET, timestamp, signature, request, nowSeconds: TS });

describe("a request's signature", () => {
  it("is HMAC-SHA256 of '<timestamp>.' and the signed bytes, so one made for another timestamp does not verify", () => {
    const v2 = documented(TS, `POST ${POST.target}\n${POST.body}`);
    expect(signPayload(SECRET, TS, requestBytes(POST))).toBe(v2);
    expect(requestSignatureHeaders(SECRET, POST, TS)).toEqual({
      "X-Agentsvc-Timestamp": String(TS),
      "X-Agentsvc-Signature": `v2=${v2}`,
    });
    expect(signatureHeaders(SECRET, POST.body, TS)["X-Agentsvc-Signature"]).toBe(
      `v1=${documented(TS, POST.body)}`,
    );
    // Captured, then sent again with a fresh timestamp: refused.
    expect(verify(`v2=${v2}`, POST, String(TS - 10))).toEqual({ ok: false, reason: "bad_signature" });
    expect(verify(`v1=${documented(TS, POST.body)}`, POST, String(TS - 10))).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("verified names its scheme and digest; refused, the reason is bad_signature", () => {
    const v2 = documented(TS, `POST ${POST.target}\n${POST.body}`);
    const v1 = documented(TS, POST.body);
    expect(verify(`v2=${v2}`)).toEqual({ ok: true, digest: v2, scheme: "v2" });
    expect(verify(`v1=${v1}`)).toEqual({ ok: true, digest: v1, scheme: "v1" });
    expect(
      verifySignature({
        secret: SECRET,
        timestamp: String(TS),
        signature: `v1=${v1}`,
        signed: new TextEncoder().encode(POST.body),
        nowSeconds: TS,
      }),
    ).toEqual({ ok: true, digest: v1, scheme: "v1" });
    expect(verify(`v2=${"0".repeat(64)}`)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("of a request without a body, v1, covers '<METHOD> <target>' with the method in capitals", () => {
    const v1 = documented(TS, `GET ${GET.target}`);
    expect(verify(`v1=${v1}`, GET)).toEqual({ ok: true, digest: v1, scheme: "v1" });
    expect(verify(`v1=${v1}`, { ...GET, method: "get" })).toMatchObject({ ok: true });
    for (const signed of ["", `get ${GET.target}`, `GET ${GET.target}\n`])
      expect(verify(`v1=${documented(TS, signed)}`, GET), JSON.stringify(signed)).toEqual({
        ok: false,
        reason: "bad_signature",
      });
  });

  it("is one '<scheme>=<64 hex>' per comma-separated value, blanks around it allowed, nothing else", () => {
    const v2 = documented(TS, `POST ${POST.target}\n${POST.body}`);
    const v1 = documented(TS, POST.body);
    expect(verify(` v2=${v2}\t`)).toMatchObject({ ok: true, scheme: "v2" });
    expect(verify(`v1=${"0".repeat(64)}, v1=${v1} `)).toMatchObject({ ok: true, scheme: "v1" });
    for (const header of [
      `xv2=${v2}`,
      `v2=${v2}x`,
      `v2=${v2} x`,
      `x v2=${v2}`,
      `xv1=${v1}`,
      `v1=${v1}x`,
      `v1=${v1} x`,
      `x v1=${v1}`,
    ])
      expect(verify(header), header).toEqual({ ok: false, reason: "bad_signature" });
  });
});

describe("a request's timestamp", () => {
  it("is whole unix seconds, up to 12 digits, with nothing before or after", () => {
    for (const timestamp of [`x${TS}`, `+${TS}`, ` ${TS}`, `${TS} `, `${TS}.0`, `-${TS}`, "1".repeat(13)]) {
      const sig = documented(timestamp, `POST ${POST.target}\n${POST.body}`);
      expect(verify(`v2=${sig}`, POST, timestamp), timestamp).toEqual({ ok: false, reason: "bad_timestamp" });
    }
  });

  it("is accepted up to exactly 300 seconds from the server's clock, either way", () => {
    for (const [timestamp, ok] of [
      [TS - 300, true],
      [TS + 300, true],
      [TS - 301, false],
      [TS + 301, false],
    ] as const) {
      const sig = documented(timestamp, `POST ${POST.target}\n${POST.body}`);
      expect(verify(`v2=${sig}`, POST, String(timestamp)), String(timestamp)).toEqual(
        ok ? { ok: true, digest: sig, scheme: "v2" } : { ok: false, reason: "stale_timestamp" },
      );
    }
  });

  it("defaults to now in seconds: headers made without a clock verify against the real clock", () => {
    const check = (headers: Record<string, string>, scheme: string) =>
      expect(
        verifyRequest({
          secret: SECRET,
          timestamp: headers["X-Agentsvc-Timestamp"],
          signature: headers["X-Agentsvc-Signature"],
          request: POST,
        }),
      ).toMatchObject({ ok: true, scheme });
    check(requestSignatureHeaders(SECRET, POST), "v2");
    check(signatureHeaders(SECRET, POST.body), "v1");
  });
});
