// The messaging endpoint, on webhook-kit's webhookRoute: verify (the connector's JWT before the body
// is read, then its ties to the activity), parse (the activity -> message, click or ignore) and
// handle (record, then acknowledge).
//
// A Bot Framework token does not cover the body: whoever holds one (valid about an hour) can send
// any activity with it. The damage is bounded: an activity id is recorded once (dedup), and an
// activity whose `timestamp` is older than the token's lifetime is refused, so a body captured
// earlier cannot be sent again under a later token.
import type { GatewayContext, WebhookRequest, WebhookResponse } from "@agentsvc/adapter-kit";
import { type VerifyResult, webhookRoute } from "@agentsvc/webhook-kit";
import { CLOCK_SKEW_SECONDS, type ConnectorAuth } from "./connector-auth.js";
import {
  isObject,
  type ReadActivity,
  readActivity,
  type TeamsClick,
  type TeamsConsent,
  type TeamsMessage,
} from "./inbound.js";

type Json = Record<string, unknown>;

/** An invoke answer Teams shows as a toast and does not retry. */
export const invokeAnswer = (message: string): WebhookResponse => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    statusCode: 200,
    type: "application/vnd.microsoft.activity.message",
    value: message,
  }),
});

export interface TeamsWebhookParts {
  context(): GatewayContext | undefined;
  auth(): ConnectorAuth | undefined;
  message(m: TeamsMessage, ctx: GatewayContext): Promise<void>;
  click(c: TeamsClick, ctx: GatewayContext): Promise<WebhookResponse | undefined>;
  consent(c: TeamsConsent, ctx: GatewayContext): Promise<WebhookResponse>;
}

export function teamsWebhook(parts: TeamsWebhookParts) {
  return webhookRoute<Exclude<ReadActivity, { ignore: string }>>({
    context: parts.context,
    verify: async (req, ctx) => verifyActivity(parts.auth(), req, ctx),
    parse: (req) => {
      const activity = activityOf(req);
      return activity ? readActivity(activity) : { invalid: "the body is not an activity" };
    },
    handle: async (read, _req, ctx) => {
      if (read.kind === "message") return void (await parts.message(read, ctx));
      return read.kind === "consent" ? parts.consent(read, ctx) : parts.click(read, ctx);
    },
  });
}

async function verifyActivity(
  auth: ConnectorAuth | undefined,
  req: WebhookRequest,
  ctx: GatewayContext,
): Promise<VerifyResult> {
  if (!auth) return { ok: false, reason: "not_started" };
  const verdict = await auth.verify(req.headers.authorization);
  if (!verdict.ok) {
    if (verdict.detail) ctx.logger.debug({ reason: verdict.reason, detail: verdict.detail }, "token refused");
    return verdict;
  }
  const activity = activityOf(req);
  if (!activity) return { ok: true }; // parse answers 400
  const mismatch = auth.matches(verdict.token, activity);
  if (mismatch) return { ok: false, reason: mismatch };
  // Only what acts needs a timestamp; a channel includes it on every activity it records (A2040).
  const acts = activity.type === "message" || activity.type === "invoke";
  const at = Date.parse(typeof activity.timestamp === "string" ? activity.timestamp : "");
  if (acts && Number.isNaN(at)) return { ok: false, reason: "no_timestamp" };
  if (acts && Date.now() - at > (verdict.token.lifetimeSeconds + CLOCK_SKEW_SECONDS) * 1000)
    return { ok: false, reason: "stale_activity" };
  return { ok: true };
}

function activityOf(req: WebhookRequest): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(req.rawBody).toString("utf8"));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
