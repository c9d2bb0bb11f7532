// One Hono handler for every http gateway entry:
//   POST /gateways/:gatewayName/events                 inbound event -> 202 once recorded, 200 on a repeat
//   GET  /gateways/:gatewayName/threads/:thread/messages?after=<seq>   the thread's outbox
//   GET  /interactions/:requestID                      an interaction request
//   POST /interactions/:requestID/decisions            a decision (decidedBy = "http:<signer>")
// Every request is signed (see signature.ts); the signature is checked over the raw bytes first.
import type { Context } from "hono";
import { Hono } from "hono";
import type { DecisionInput } from "@agentsvc/session-core";
import { readBody } from "@agentsvc/webhook-kit";
import type { HttpGateway } from "./http-gateway.js";
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  TOLERANCE_SECONDS,
  type VerifyFailure,
  verifySignature,
} from "./signature.js";

export interface HttpHandlerOptions {
  /** Largest accepted body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Clock in unix seconds (tests). */
  nowSeconds?: () => number;
}

const DECISIONS = ["approve", "reject", "edit"] as const;

function fail(c: Context, status: 400 | 401 | 404 | 409 | 413 | 500 | 503, code: string, message: string) {
  return c.json({ success: false, error: { code, message } }, status);
}

/** 413, closing the connection: the rest of the body is left unread. */
function tooLarge(c: Context, maxBody: number) {
  c.header("connection", "close");
  return fail(c, 413, "body_too_large", `body: larger than ${maxBody} bytes`);
}

const FAILURE_TEXT: Record<VerifyFailure, string> = {
  no_secret: "no signing secret is configured for this gateway; every request is rejected",
  missing_header: "X-Agentsvc-Timestamp and X-Agentsvc-Signature headers are required",
  bad_timestamp: "X-Agentsvc-Timestamp: expected unix seconds",
  stale_timestamp: "X-Agentsvc-Timestamp: more than 300 seconds away from the server clock",
  bad_signature: "X-Agentsvc-Signature: does not match the request",
};

export function createHttpGatewayHandler(
  gateways: readonly HttpGateway[],
  options: HttpHandlerOptions = {},
): Hono {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const byName = new Map(gateways.map((g) => [g.name, g]));
  const app = new Hono();

  /** Raw bytes the signature covers: the body, or "<METHOD> <path?query>" when there is none. */
  async function signedBytes(c: Context): Promise<{ bytes: Uint8Array; body: Uint8Array } | "too_large"> {
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > maxBody) return "too_large";
    // Counted while it streams: a chunked body (no Content-Length) stops at the limit, unbuffered.
    const read = await readBody(c.req.raw.body, maxBody);
    if (!read.ok) return "too_large";
    const body = read.bytes;
    if (body.byteLength > 0) return { bytes: body, body };
    const url = new URL(c.req.url);
    return { bytes: new TextEncoder().encode(`${c.req.method} ${url.pathname}${url.search}`), body };
  }

  function check(c: Context, gateway: HttpGateway, bytes: Uint8Array) {
    return verifySignature({
      secret: gateway.secret,
      timestamp: c.req.header(TIMESTAMP_HEADER),
      signature: c.req.header(SIGNATURE_HEADER),
      signed: bytes,
      nowSeconds: now(),
    });
  }

  /** The started gateway whose secret signed this request (interaction routes name no gateway). */
  function signer(c: Context, bytes: Uint8Array): { gateway: HttpGateway; digest: string } | VerifyFailure {
    let failure: VerifyFailure = "no_secret";
    for (const g of gateways) {
      if (!g.context) continue;
      const result = check(c, g, bytes);
      if (result.ok) return { gateway: g, digest: result.digest };
      if (failure === "no_secret" || result.reason !== "no_secret") failure = result.reason;
    }
    return failure;
  }

  function parseJson(body: Uint8Array): { ok: true; value: unknown } | { ok: false } {
    try {
      return { ok: true, value: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body)) };
    } catch {
      return { ok: false };
    }
  }

  app.post("/gateways/:gatewayName/events", async (c) => {
    const gateway = byName.get(c.req.param("gatewayName"));
    if (!gateway)
      return fail(c, 404, "gateway_not_found", `no http gateway named "${c.req.param("gatewayName")}"`);
    const context = gateway.context;
    if (!context) return fail(c, 503, "not_started", `http gateway "${gateway.name}" is not started`);
    const raw = await signedBytes(c);
    if (raw === "too_large") return tooLarge(c, maxBody);
    const verified = check(c, gateway, raw.bytes);
    if (!verified.ok) return fail(c, 401, "unauthorized", FAILURE_TEXT[verified.reason]);
    const parsed = parseJson(raw.body);
    if (!parsed.ok) return fail(c, 400, "bad_json", "body: expected a JSON object");
    const body = parsed.value as Record<string, unknown> | null;
    const problem = eventProblem(body);
    if (problem) return fail(c, 400, "bad_request", problem);
    const event = body as {
      id: string;
      thread: string;
      text: string;
      userDisplay?: string;
      meta?: Record<string, unknown>;
    };
    try {
      // The signer is the author as far as this server can know: the body's words are a label only.
      const result = await context.deliver({
        dedupKey: event.id,
        thread: event.thread,
        text: event.text,
        author: {
          id: `http:${gateway.name}`,
          ...(event.userDisplay !== undefined ? { displayName: event.userDisplay } : {}),
        },
        ...(event.meta !== undefined ? { meta: event.meta } : {}),
      });
      if (!result.accepted) return c.json({ success: true, duplicate: true }, 200);
      return c.json({ success: true, accepted: true, id: result.id }, 202);
    } catch (err) {
      context.logger.error({ err }, "recording an inbound event failed");
      return fail(c, 500, "ingest_failed", "the event could not be recorded; retry it");
    }
  });

  app.get("/gateways/:gatewayName/threads/:thread/messages", async (c) => {
    const gateway = byName.get(c.req.param("gatewayName"));
    if (!gateway)
      return fail(c, 404, "gateway_not_found", `no http gateway named "${c.req.param("gatewayName")}"`);
    if (!gateway.context) return fail(c, 503, "not_started", `http gateway "${gateway.name}" is not started`);
    const raw = await signedBytes(c);
    if (raw === "too_large") return tooLarge(c, maxBody);
    const verified = check(c, gateway, raw.bytes);
    if (!verified.ok) return fail(c, 401, "unauthorized", FAILURE_TEXT[verified.reason]);
    const afterText = c.req.query("after") ?? "0";
    if (!/^\d+$/.test(afterText))
      return fail(c, 400, "bad_request", `after: expected a non-negative integer (got "${afterText}")`);
    const messages = await gateway.messages(c.req.param("thread"), Number(afterText));
    return c.json({ success: true, messages, next: messages.at(-1)?.seq ?? Number(afterText) });
  });

  app.get("/interactions/:requestID", async (c) => {
    const raw = await signedBytes(c);
    if (raw === "too_large") return tooLarge(c, maxBody);
    const signed = signer(c, raw.bytes);
    if (typeof signed === "string") return fail(c, 401, "unauthorized", FAILURE_TEXT[signed]);
    const who = signed.gateway;
    const view = await who.context?.interaction(c.req.param("requestID"));
    // Another gateway's request reads as absent: a signer sees only its own.
    if (!view || view.gateway !== who.name)
      return fail(c, 404, "not_found", `no interaction request "${c.req.param("requestID")}"`);
    return c.json({ success: true, interaction: view });
  });

  app.post("/interactions/:requestID/decisions", async (c) => {
    const requestId = c.req.param("requestID");
    const raw = await signedBytes(c);
    if (raw === "too_large") return tooLarge(c, maxBody);
    const signed = signer(c, raw.bytes);
    if (typeof signed === "string") return fail(c, 401, "unauthorized", FAILURE_TEXT[signed]);
    const who = signed.gateway;
    const context = who.context;
    if (!context) return fail(c, 503, "not_started", `http gateway "${who.name}" is not started`);
    // A decision signature is bound to the request it was first used for (the signed body does not
    // name the request): keyed on the canonical digest and kept durably until the timestamp could
    // no longer verify, so neither another spelling nor a restart lets a captured "approve" move.
    const claim = await context.claimOnce(
      `decision:${signed.digest}`,
      requestId,
      2 * TOLERANCE_SECONDS * 1000,
    );
    if (!claim.claimed && claim.value !== requestId) {
      context.logger.warn(
        { requestId, firstUsedFor: claim.value },
        "decision signature replayed onto another request; refused",
      );
      return fail(c, 401, "unauthorized", "X-Agentsvc-Signature: already used for another request");
    }
    const parsed = parseJson(raw.body);
    if (!parsed.ok) return fail(c, 400, "bad_json", "body: expected a JSON object");
    const body = parsed.value as Record<string, unknown> | null;
    const problem = decisionProblem(body);
    if (problem) return fail(c, 400, "bad_request", problem);
    const view = await context.interaction(requestId);
    if (!view || view.gateway !== who.name)
      return fail(c, 404, "not_found", `no interaction request "${requestId}"`);
    const b = body as { decision: DecisionInput["decision"]; reason?: string; editedData?: unknown };
    const decision: DecisionInput = {
      decision: b.decision,
      ...(b.reason !== undefined ? { reason: b.reason } : {}),
      ...(b.editedData !== undefined ? { editedData: b.editedData } : {}),
    };
    // decidedBy comes from the verified signer; a `decidedBy` in the body is ignored.
    const result = await context.decide(requestId, decision, `http:${who.name}`);
    if (result.ok)
      return c.json({ success: true, requestId, decision: result.decision, decidedBy: `http:${who.name}` });
    const status = result.code === "not_found" ? 404 : result.code === "already_decided" ? 409 : 400;
    return fail(c, status, result.code, result.message);
  });

  app.notFound((c) => fail(c, 404, "not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`));
  app.onError((err, c) => {
    for (const g of gateways) g.context?.logger.error({ err }, "http gateway handler failed");
    return fail(c, 500, "internal_error", "internal error");
  });
  return app;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function eventProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "body: expected a JSON object";
  for (const key of ["id", "thread"] as const) {
    const v = body[key];
    if (typeof v !== "string" || v === "" || v.length > 1024) {
      return `body.${key}: expected a non-empty string of at most 1024 characters (got ${JSON.stringify(v) ?? "nothing"})`;
    }
  }
  if (typeof body.text !== "string") return `body.text: expected a string (got ${typeof body.text})`;
  if (body.userDisplay !== undefined && typeof body.userDisplay !== "string")
    return "body.userDisplay: expected a string";
  if (body.meta !== undefined && !isObject(body.meta)) return "body.meta: expected an object";
  return undefined;
}

function decisionProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "body: expected a JSON object";
  if (!DECISIONS.includes(body.decision as (typeof DECISIONS)[number])) {
    return `body.decision: expected one of approve, reject, edit (got ${JSON.stringify(body.decision) ?? "nothing"})`;
  }
  if (body.reason !== undefined && typeof body.reason !== "string") return "body.reason: expected a string";
  return undefined;
}
