// One Hono handler for every http gateway entry:
//   POST /gateways/:gatewayName/events                 inbound event -> 202 once recorded, 200 on a repeat
//   GET  /gateways/:gatewayName/threads/:thread/messages?after=<seq>   the thread's outbox
//   GET  /interactions/:requestID                      an interaction request
//   POST /interactions/:requestID/decisions            a decision (decidedBy = "http:<signer>")
// Every body is read with a byte limit while it streams (413, connection closed), and every request
// is signed (see signature.ts): the signature is checked over the raw bytes before anything is parsed.
import type { DecisionInput, WebhookRequest, WebhookResponse } from "@agentsvc/adapter-kit";
import { rawRequest } from "@agentsvc/webhook-kit";
import type { Context } from "hono";
import { Hono } from "hono";
import type { HttpGateway } from "./gateway.js";
import { isObject } from "./inbound.js";
import { TOLERANCE_SECONDS, type VerifyFailure } from "./signature.js";
import { idProblem } from "./thread.js";
import { checkSignature, eventsRoute, FAILURE_TEXT, jsonBody, jsonFailure } from "./webhook.js";

export interface HttpHandlerOptions {
  /** Largest accepted body. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Clock in unix seconds (tests). */
  nowSeconds?: () => number;
}

const DECISIONS = ["approve", "reject", "edit"] as const;

/**
 * A request as the gateway sees it. A Request's url is already serialized (WHATWG), so it is `url`
 * and `publicUrl` as it is, not parsed again; the query is parsed only when read (no route here reads
 * it). A class: an object literal with a getter cost 2-3 us to make (a runtime call a request),
 * against 0.8-1.1 us for the URL parse it saved and 0.1-0.2 us for this (node 24, micro-bench).
 */
class ReceivedRequest implements WebhookRequest {
  method: "GET" | "POST";
  rawBody: Uint8Array;
  headers: Readonly<Record<string, string>>;
  url: string;
  publicUrl: string;
  #query: URLSearchParams | undefined;
  constructor(method: "GET" | "POST", rawBody: Uint8Array, headers: Record<string, string>, url: string) {
    this.method = method;
    this.rawBody = rawBody;
    this.headers = headers;
    this.url = url;
    this.publicUrl = url;
  }
  get query(): URLSearchParams {
    this.#query ??= new URL(this.url).searchParams;
    return this.#query;
  }
}

function send(response: WebhookResponse, extraHeaders: Record<string, string> = {}): Response {
  return new Response(response.body ?? null, {
    status: response.status,
    headers: { ...(response.headers ?? {}), ...extraHeaders },
  });
}

function fail(status: number, code: string, message: string): Response {
  return send(jsonFailure(status, code, message));
}

export function createHttpGatewayHandler(
  gateways: readonly HttpGateway[],
  options: HttpHandlerOptions = {},
): Hono {
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const byName = new Map(gateways.map((g) => [g.name, { gateway: g, events: eventsRoute(g, now) }]));
  const app = new Hono();

  /** The request as the signature sees it; its body read with the limit while it streams. */
  async function received(c: Context): Promise<WebhookRequest | "too_large"> {
    // Served by @hono/node-server: headers and body straight from Node's request, never made
    // into a fetch Request and a web stream (most of this function's CPU in a profile).
    // A Content-Length over the limit is refused by raw.body before a byte is read, and drained.
    const raw = rawRequest(c.env, c.req.raw);
    const headers = raw.headers;
    const method = c.req.method === "GET" ? "GET" : "POST";
    // A GET's body is neither read nor signed; one declared over the limit is refused all the same.
    const read =
      method === "POST" || Number(headers["content-length"] ?? "0") > maxBody
        ? await raw.body(maxBody)
        : undefined;
    if (read && !read.ok) return "too_large";
    return new ReceivedRequest(method, read?.bytes ?? new Uint8Array(), headers, c.req.url);
  }

  /** 413, closing the connection once the reader has drained the rest of the body (within its bound). */
  const tooLarge = () =>
    send(jsonFailure(413, "body_too_large", `body: larger than ${maxBody} bytes`), { connection: "close" });

  /** The started gateway whose secret signed this request (interaction routes name no gateway). */
  function signer(
    req: WebhookRequest,
  ): { gateway: HttpGateway; digest: string; v1: boolean } | VerifyFailure {
    let failure: VerifyFailure = "no_secret";
    for (const g of gateways) {
      if (!g.context) continue;
      const result = checkSignature(g, req, now());
      if (result.ok) return { gateway: g, digest: result.digest, v1: result.scheme === "v1" };
      if (failure === "no_secret" || result.reason !== "no_secret") failure = result.reason;
    }
    return failure;
  }

  const unknownGateway = (name: string) => fail(404, "gateway_not_found", `no http gateway named "${name}"`);

  app.post("/gateways/:gatewayName/events", async (c) => {
    const entry = byName.get(c.req.param("gatewayName"));
    if (!entry) return unknownGateway(c.req.param("gatewayName"));
    if (!entry.gateway.context)
      return fail(503, "not_started", `http gateway "${entry.gateway.name}" is not started`);
    const req = await received(c);
    if (req === "too_large") return tooLarge();
    return send(await entry.events.handle(req));
  });

  app.get("/gateways/:gatewayName/threads/:thread/messages", async (c) => {
    const entry = byName.get(c.req.param("gatewayName"));
    if (!entry) return unknownGateway(c.req.param("gatewayName"));
    const gateway = entry.gateway;
    if (!gateway.context) return fail(503, "not_started", `http gateway "${gateway.name}" is not started`);
    const req = await received(c);
    if (req === "too_large") return tooLarge();
    const verified = checkSignature(gateway, req, now());
    if (!verified.ok) return fail(401, "unauthorized", FAILURE_TEXT[verified.reason]);
    const afterText = c.req.query("after") ?? "0";
    if (!/^\d+$/.test(afterText))
      return fail(400, "bad_request", `after: expected a non-negative integer (got "${afterText}")`);
    const thread = c.req.param("thread");
    const problem = idProblem("thread", thread);
    if (problem) return fail(400, "bad_request", problem);
    const messages = await gateway.messages(thread, Number(afterText));
    return c.json({ success: true, messages, next: messages.at(-1)?.seq ?? Number(afterText) });
  });

  app.get("/interactions/:requestID", async (c) => {
    const req = await received(c);
    if (req === "too_large") return tooLarge();
    const signed = signer(req);
    if (typeof signed === "string") return fail(401, "unauthorized", FAILURE_TEXT[signed]);
    const who = signed.gateway;
    const view = await who.context?.interaction(c.req.param("requestID"));
    // Another gateway's request reads as absent: a signer sees only its own.
    if (!view || view.gateway !== who.name)
      return fail(404, "not_found", `no interaction request "${c.req.param("requestID")}"`);
    return c.json({ success: true, interaction: view });
  });

  app.post("/interactions/:requestID/decisions", async (c) => {
    const requestId = c.req.param("requestID");
    const req = await received(c);
    if (req === "too_large") return tooLarge();
    const signed = signer(req);
    if (typeof signed === "string") return fail(401, "unauthorized", FAILURE_TEXT[signed]);
    const who = signed.gateway;
    const context = who.context;
    if (!context) return fail(503, "not_started", `http gateway "${who.name}" is not started`);
    // A v2 signature covers the request target, so it names its request. A deprecated v1 signature
    // covers the body alone: it is bound to the request it was first used for, keyed on the
    // canonical digest and kept durably until the timestamp could no longer verify, so neither
    // another spelling nor a restart lets a captured "approve" move.
    if (signed.v1) {
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
        return fail(401, "unauthorized", "X-Agentsvc-Signature: already used for another request");
      }
    }
    const parsed = jsonBody(req.rawBody);
    if ("invalid" in parsed) return fail(400, parsed.code, parsed.invalid);
    const problem = decisionProblem(parsed.value);
    if (problem) return fail(400, "bad_request", problem);
    const view = await context.interaction(requestId);
    if (!view || view.gateway !== who.name)
      return fail(404, "not_found", `no interaction request "${requestId}"`);
    const b = parsed.value as { decision: DecisionInput["decision"]; reason?: string; editedData?: unknown };
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
    return fail(status, result.code, result.message);
  });

  app.notFound((c) => fail(404, "not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`));
  app.onError((err) => {
    for (const g of gateways) g.context?.logger.error({ err }, "http gateway handler failed");
    return fail(500, "internal_error", "internal error");
  });
  return app;
}

function decisionProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "body: expected a JSON object";
  if (!DECISIONS.includes(body.decision as (typeof DECISIONS)[number])) {
    return `body.decision: expected one of approve, reject, edit (got ${JSON.stringify(body.decision) ?? "nothing"})`;
  }
  if (body.reason !== undefined && typeof body.reason !== "string") return "body.reason: expected a string";
  return undefined;
}
