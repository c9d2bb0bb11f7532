// Signature checks over real HTTP: valid, tampered byte, missing header, stale timestamp, empty secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestSignatureHeaders, signPayload, verifySignature } from "../src/index.js";
import { body, signed } from "./client.js";
import { type HttpRig, httpRig } from "./rig.js";

const SECRET = "s3cret-value";
let r: HttpRig;

beforeAll(async () => {
  r = await httpRig(
    [
      { name: "hooks", secretEnvVar: "HOOKS_SECRET" },
      { name: "unsigned", secretEnvVar: "UNSET_SECRET" },
    ],
    { HOOKS_SECRET: SECRET },
  );
});
afterAll(() => r.close());

const event = (id: string) => ({ id, thread: "sig-thread", text: "hello" });

describe("http gateway request signatures", () => {
  it("accepts a correctly signed event", async () => {
    const res = await signed(r.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: event("e-valid"),
    });
    expect(res.status).toBe(202);
  });

  it("rejects a body with one byte changed after signing, before parsing it", async () => {
    const res = await signed(r.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: event("e-tamper"),
      tamper: true,
    });
    expect(res.status).toBe(401);
    expect(await body(res)).toMatchObject({ success: false, error: { code: "unauthorized" } });
    expect((await r.db.inbox.unfinished()).some((x) => x.dedupKey === "e-tamper")).toBe(false);
  });

  it("rejects invalid JSON bytes with 401 when unsigned, never a parse error", async () => {
    const raw = new TextEncoder().encode("{not json");
    const res = await signed(r.base, "POST", "/gateways/hooks/events", { secret: "wrong", raw });
    expect(res.status).toBe(401);
    const ok = await signed(r.base, "POST", "/gateways/hooks/events", { secret: SECRET, raw });
    expect(ok.status).toBe(400);
    expect(await body(ok)).toMatchObject({ error: { code: "bad_json" } });
  });

  it("rejects a request missing the timestamp or the signature header", async () => {
    for (const omit of ["timestamp", "signature"] as const) {
      const res = await signed(r.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: event(`e-miss-${omit}`),
        omit,
      });
      expect(res.status).toBe(401);
      expect((await body(res)).error.message).toContain("headers are required");
    }
  });

  it("rejects a timestamp more than five minutes old or ahead", async () => {
    // Margins of 30 s around the 300 s window: a loaded machine may take seconds between signing
    // and the server's clock reading (a +301 s stamp became 299 s away and was accepted).
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 330, now + 330]) {
      const res = await signed(r.base, "POST", "/gateways/hooks/events", {
        secret: SECRET,
        body: event(`e-stale-${timestamp}`),
        timestamp,
      });
      expect(res.status).toBe(401);
      expect((await body(res)).error.message).toContain("300 seconds");
    }
    const edge = await signed(r.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: event("e-edge"),
      timestamp: now - 270,
    });
    expect(edge.status).toBe(202);
  });

  it("rejects every request to a gateway whose secret variable is unset, after warning at start", async () => {
    const res = await signed(r.base, "POST", "/gateways/unsigned/events", {
      secret: "",
      body: event("e-empty"),
    });
    expect(res.status).toBe(401);
    expect((await body(res)).error.message).toContain("no signing secret is configured");
    const read = await signed(r.base, "GET", "/gateways/unsigned/threads/x/messages", { secret: "" });
    expect(read.status).toBe(401);
    const warning = r
      .logs()
      .find((l) => l.level === 40 && String(l.msg).includes("UNSET_SECRET is unset or empty"));
    expect(warning?.name).toBe("gateway-http");
  });

  it("accepts a deprecated v1 (body-only) event signature and a v2 one, and refuses a v2 signature over another path", async () => {
    const v1 = await signed(r.base, "POST", "/gateways/hooks/events", {
      secret: SECRET,
      body: event("e-v1"),
      scheme: "v1",
    });
    expect(v1.status).toBe(202);
    const raw = JSON.stringify(event("e-moved"));
    const now = Math.floor(Date.now() / 1000);
    const elsewhere = requestSignatureHeaders(
      SECRET,
      { method: "POST", target: "/gateways/other/events", body: raw },
      now,
    );
    const moved = await fetch(`${r.base}/gateways/hooks/events`, {
      method: "POST",
      headers: elsewhere,
      body: raw,
    });
    expect(moved.status).toBe(401);
  });

  it("binds a GET signature to its path, so it cannot be reused for another resource", async () => {
    const now = Math.floor(Date.now() / 1000);
    const sig = signPayload(SECRET, now, "GET /gateways/hooks/threads/a/messages");
    const res = await fetch(`${r.base}/gateways/hooks/threads/b/messages`, {
      headers: { "X-Agentsvc-Timestamp": String(now), "X-Agentsvc-Signature": `v1=${sig}` },
    });
    expect(res.status).toBe(401);
  });

  it("verifySignature compares digests only when well-formed and accepts any listed v1 value", () => {
    const body = new TextEncoder().encode("{}");
    const ts = "1700000000";
    const good = signPayload("k", ts, body);
    const at = { secret: "k", timestamp: ts, signed: body, nowSeconds: 1700000000 };
    expect(verifySignature({ ...at, signature: `v1=${good}` })).toMatchObject({ ok: true });
    expect(verifySignature({ ...at, signature: `v1=${"0".repeat(64)}, v1=${good}` })).toMatchObject({
      ok: true,
    });
    expect(verifySignature({ ...at, signature: `v1=${good.slice(2)}` })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifySignature({ ...at, signature: `sha256=${good}` })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifySignature({ ...at, timestamp: "12abc", signature: `v1=${good}` })).toEqual({
      ok: false,
      reason: "bad_timestamp",
    });
  });
});
