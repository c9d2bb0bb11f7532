// Verify, parse and map for the http gateway's signed routes. The events route is the kit's
// `webhookRoute` (verify over the raw bytes, parse, record, then 202); the other routes verify with
// the same `checkSignature`. Refusals are JSON `{ success: false, error: { code, message } }`.
import type {
  GatewayContext,
  Inbound,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "@agentsvc/adapter-kit";
import { type WebhookRefusal, webhookRoute } from "@agentsvc/webhook-kit";
import type { HttpGateway } from "./gateway.js";
import { eventProblem, type HttpEvent, toInbound } from "./inbound.js";
import type { VerifyFailure, VerifyResult } from "./signature.js";

export const FAILURE_TEXT: Record<VerifyFailure, string> = {
  no_secret: "no signing secret is configured for this gateway; every request is rejected",
  missing_header: "X-Agentsvc-Timestamp and X-Agentsvc-Signature headers are required",
  bad_timestamp: "X-Agentsvc-Timestamp: expected unix seconds",
  stale_timestamp: "X-Agentsvc-Timestamp: more than 300 seconds away from the server clock",
  bad_signature: "X-Agentsvc-Signature: does not match the request",
};

export function jsonFailure(status: number, code: string, message: string): WebhookResponse {
  return {
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ success: false, error: { code, message } }),
  };
}

export function jsonAnswer(status: number, body: Record<string, unknown>): WebhookResponse {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** Longest `text` of one event, in characters (as the agent route's and the chat page's input). */
const MAX_MESSAGE_CHARS = 200_000;

/** Gateways already warned that a client signs with the deprecated v1 scheme (once per gateway). */
const warnedV1 = new WeakSet<HttpGateway>();

/** Checks the request's signature with `gateway`'s secret; logs a v1 signature's deprecation once. */
export function checkSignature(gateway: HttpGateway, req: WebhookRequest, nowSeconds: number): VerifyResult {
  const result = gateway.verify(req, nowSeconds);
  if (result.ok && result.scheme === "v1" && !warnedV1.has(gateway)) {
    warnedV1.add(gateway);
    gateway.context?.logger.warn(
      { gateway: gateway.name },
      "a client signs with scheme v1 (the body alone), deprecated: sign method, target and body with v2 (requestSignatureHeaders); v1 is refused from the next release",
    );
  }
  return result;
}

/** Refuses malformed UTF-8; one decoder serves every request (a decode without `stream` resets it). */
const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(body: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(utf8.decode(body)) };
  } catch {
    return { ok: false };
  }
}

/** A verified JSON body, or the `{ invalid, code }` refusal of `webhookRoute`. */
export function jsonBody(rawBody: Uint8Array): { value: unknown } | { invalid: string; code: string } {
  const parsed = parseJson(rawBody);
  return parsed.ok ? { value: parsed.value } : { invalid: "body: expected a JSON object", code: "bad_json" };
}

function refuse(gatewayName: string) {
  return (r: WebhookRefusal): WebhookResponse => {
    switch (r.code) {
      case "not_started":
        return jsonFailure(503, "not_started", `http gateway "${gatewayName}" is not started`);
      case "unauthorized":
        return jsonFailure(401, "unauthorized", FAILURE_TEXT[r.reason as VerifyFailure] ?? r.reason);
      case "record_failed":
        return jsonFailure(500, "ingest_failed", "the event could not be recorded; retry it");
      case "message_too_large":
        return jsonFailure(413, r.code, r.reason);
      default:
        return jsonFailure(r.status, r.code === "invalid" ? "bad_request" : r.code, r.reason);
    }
  };
}

/** `POST /gateways/<name>/events`: signed, parsed, recorded, then 202 (200 for a repeated id). */
export function eventsRoute(gateway: HttpGateway, now: () => number): WebhookRoute {
  return webhookRoute<Inbound>({
    context: (): GatewayContext | undefined => gateway.context,
    verify: (req) => {
      const result = checkSignature(gateway, req, now());
      return result.ok ? { ok: true } : { ok: false, reason: result.reason };
    },
    parse: (req) => {
      const body = jsonBody(req.rawBody);
      if ("invalid" in body) return body;
      const problem = eventProblem(body.value);
      if (problem) return { invalid: problem, code: "bad_request" };
      const event = body.value as HttpEvent;
      // One message bounds what its turn stores (the agent route and the chat page cap the same).
      if (event.text.length > MAX_MESSAGE_CHARS)
        return {
          invalid: `body.text: ${event.text.length} characters, more than the ${MAX_MESSAGE_CHARS}-character limit of one message`,
          code: "message_too_large",
        };
      return toInbound(event, gateway.name);
    },
    handle: async (inbound, _req, ctx) => {
      const result = await ctx.deliver(inbound);
      if (!result.accepted) return jsonAnswer(200, { success: true, duplicate: true });
      return jsonAnswer(202, { success: true, accepted: true, id: result.id });
    },
    refuse: refuse(gateway.name),
  });
}
