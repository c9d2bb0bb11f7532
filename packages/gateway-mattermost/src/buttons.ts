// Approvals as interactive message buttons (https://developers.mattermost.com/integrate/plugins/interactive-messages/):
// each button's `integration` names our webhook route and a `context` Mattermost POSTs back as is,
// with the presser's `user_id` and `channel_id`. Mattermost signs nothing, so the context carries
// our HMAC over the decision payload and the channel: a press is taken only when that signature
// checks (constant time) and the channel it came from is the one the buttons were posted to. The
// answer's `update` replaces the post, so the buttons go once a decision is taken.
import { createHmac, timingSafeEqual } from "node:crypto";
import {
  decisionLabel,
  decodeDecision,
  encodeDecision,
  type GatewayContext,
  type InteractionRequest,
  pressableDecisions,
  type WebhookResponse,
} from "@agentsvc/adapter-kit";

function sign(secret: string, payload: string, channelId: string): string {
  return createHmac("sha256", secret).update(`${payload}\n${channelId}`).digest("base64url");
}

/** The post's `props.attachments`: the prompt and one button per pressable decision. */
export function buttonsFor(request: InteractionRequest, channelId: string, url: string, secret: string) {
  const actions = pressableDecisions(request.allowedDecisions).map((d) => {
    const payload = encodeDecision(request.requestId, d);
    return {
      id: d,
      name: decisionLabel(d),
      type: "button",
      integration: { url, context: { payload, sig: sign(secret, payload, channelId) } },
    };
  });
  return { attachments: [{ text: request.prompt, actions }] };
}

const json = (status: number, body: unknown): WebhookResponse => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** One button press: check the signature, decide for the presser, answer with the post's update. */
export async function pressed(
  raw: Uint8Array,
  secret: string,
  ctx: GatewayContext,
): Promise<WebhookResponse> {
  let body: { user_id?: unknown; channel_id?: unknown; context?: { payload?: unknown; sig?: unknown } };
  try {
    body = JSON.parse(Buffer.from(raw).toString("utf8"));
  } catch {
    return json(400, { ephemeral_text: "unreadable request" });
  }
  const payload = String(body.context?.payload ?? "");
  const given = Buffer.from(String(body.context?.sig ?? ""));
  const expected = Buffer.from(sign(secret, payload, String(body.channel_id ?? "")));
  const decoded = decodeDecision(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || !decoded)
    return json(403, { ephemeral_text: "This button was not made by this agent." });
  const result = await ctx.decide(
    decoded.requestId,
    { decision: decoded.decision },
    String(body.user_id ?? ""),
  );
  if (!result.ok) return json(200, { ephemeral_text: result.message });
  return json(200, { update: { message: `${decisionLabel(decoded.decision)}d.`, props: {} } });
}
