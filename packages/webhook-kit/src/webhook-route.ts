// The inbound rule of every webhook gateway, once: verify over the exact raw bytes before anything
// is parsed, then parse, then record (handle) before acknowledging, with one status and one log
// line per outcome. The body arrives already read with a byte limit (`readBody`; the server
// answers 413 itself), so an adapter writes only its verify, parse and map.
import type { GatewayContext, WebhookRequest, WebhookResponse, WebhookRoute } from "@agentsvc/adapter-kit";
import { plainResponse } from "./responses.js";

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * What `parse` returns: the payload, a reason to acknowledge it without a turn, or a reason it is
 * malformed (`code` names the kind for `refuse`; default `invalid`).
 */
export type ParseResult<T> = T | { ignore: string } | { invalid: string; code?: string };

/** A refusal as `webhookRoute` decided it; `refuse` may render it (the http gateway answers JSON). */
export interface WebhookRefusal {
  status: 400 | 401 | 500 | 503;
  /** `not_started`, `unauthorized`, `record_failed`, `invalid` or the code `parse` gave with `{ invalid }`. */
  code: string;
  reason: string;
}

export interface WebhookRouteSpec<T> {
  /** Default `POST`. */
  method?: "GET" | "POST";
  /** The context of the started gateway; `undefined` answers 503 (not started, or stopped). */
  context(): GatewayContext | undefined;
  /** Over `req.rawBody` and the headers only, in constant time. A refusal answers 401 with an empty body. */
  verify(req: WebhookRequest, ctx: GatewayContext): VerifyResult | Promise<VerifyResult>;
  /** Throws or returns `{ invalid }` -> 400; `{ ignore }` -> acknowledged without a turn (debug log). */
  parse(req: WebhookRequest, ctx: GatewayContext): ParseResult<T> | Promise<ParseResult<T>>;
  /** Records the payload (`ctx.deliver`, `ctx.decide`); throws -> 500 so the platform redelivers; void -> `ack`. */
  // biome-ignore lint/suspicious/noConfusingVoidType: an async handle that returns nothing means "answer with ack"
  handle(parsed: T, req: WebhookRequest, ctx: GatewayContext): Promise<WebhookResponse | void>;
  /** The acknowledgement (also for an ignored payload). Default 200 with an empty body. */
  ack?: WebhookResponse;
  /** Renders a refusal. Default: the status with an empty plain-text body (it tells an attacker nothing). */
  refuse?(refusal: WebhookRefusal): WebhookResponse;
}

const LOG = {
  unauthorized: "webhook request refused: not verified",
  invalid: "webhook payload refused: not understood",
  ignored: "webhook payload ignored",
  verifyFailed: "verifying a webhook request failed; answered 500 so the platform will retry",
  recordFailed: "recording a webhook delivery failed; answered 500 so the platform will retry",
} as const;

export function webhookRoute<T>(spec: WebhookRouteSpec<T>): WebhookRoute {
  const ack = spec.ack ?? plainResponse(200);
  const refuse = spec.refuse ?? ((r: WebhookRefusal) => plainResponse(r.status));
  return {
    method: spec.method ?? "POST",
    async handle(req) {
      const ctx = spec.context();
      if (!ctx) return refuse({ status: 503, code: "not_started", reason: "the gateway is not started" });
      let verified: VerifyResult;
      try {
        verified = await spec.verify(req, ctx);
      } catch (err) {
        ctx.logger.error({ err }, LOG.verifyFailed);
        return refuse({ status: 500, code: "record_failed", reason: "the request could not be verified" });
      }
      if (!verified.ok) {
        ctx.logger.warn({ reason: verified.reason }, LOG.unauthorized);
        return refuse({ status: 401, code: "unauthorized", reason: verified.reason });
      }
      let parsed: ParseResult<T>;
      try {
        parsed = await spec.parse(req, ctx);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        ctx.logger.warn({ reason }, LOG.invalid);
        return refuse({ status: 400, code: "invalid", reason });
      }
      const outcome = refusalOf(parsed);
      if (outcome?.kind === "invalid") {
        ctx.logger.warn({ reason: outcome.reason }, LOG.invalid);
        return refuse({ status: 400, code: outcome.code ?? "invalid", reason: outcome.reason });
      }
      if (outcome?.kind === "ignore") {
        ctx.logger.debug({ reason: outcome.reason }, LOG.ignored);
        return ack;
      }
      try {
        return (await spec.handle(parsed as T, req, ctx)) ?? ack;
      } catch (err) {
        ctx.logger.error({ err }, LOG.recordFailed);
        return refuse({
          status: 500,
          code: "record_failed",
          reason: "the delivery could not be recorded; retry it",
        });
      }
    },
  };
}

/**
 * `{ ignore }` / `{ invalid[, code] }` are told apart from a payload by their keys: exactly
 * `ignore`, or `invalid` with at most `code` beside it, all strings.
 */
function refusalOf(
  parsed: unknown,
): { kind: "ignore"; reason: string } | { kind: "invalid"; reason: string; code?: string } | undefined {
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const keys = Object.keys(parsed);
  const p = parsed as { ignore?: unknown; invalid?: unknown; code?: unknown };
  if (keys.length === 1 && typeof p.ignore === "string") return { kind: "ignore", reason: p.ignore };
  if (typeof p.invalid !== "string") return undefined;
  if (keys.length === 1) return { kind: "invalid", reason: p.invalid };
  if (keys.length === 2 && typeof p.code === "string")
    return { kind: "invalid", reason: p.invalid, code: p.code };
  return undefined;
}
