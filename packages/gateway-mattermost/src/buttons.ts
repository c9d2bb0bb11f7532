// Approvals as interactive message buttons (https://developers.mattermost.com/integrate/plugins/interactive-messages/):
// each button's `integration` names our webhook route and a `context` Mattermost POSTs back as is,
// with the presser's `user_id` and `channel_id`. Mattermost signs nothing, so the context carries the
// kit's signed decision, scoped to the channel the buttons were posted to: a press counts only when
// that signature checks. The answer's `update` replaces the post, so the buttons go once decided.
import {
  decisionLabel,
  type GatewayContext,
  type InteractionRequest,
  pressableDecisions,
  signDecision,
  splitThread,
  verifyDecision,
  type WebhookResponse,
} from "@agentsvc/adapter-kit";

/** The post's `props.attachments`: the prompt and one button per pressable decision. */
export function buttonsFor(request: InteractionRequest, url: string, secret: string) {
  const channelId = splitThread(request.thread).container;
  const actions = pressableDecisions(request.allowedDecisions).map((d) => ({
    id: d,
    name: decisionLabel(d),
    type: "button",
    integration: { url, context: signDecision(secret, request.requestId, d, channelId) },
  }));
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
  started: { secret: string; ctx: GatewayContext } | undefined,
): Promise<WebhookResponse> {
  if (!started) return { status: 503, body: "not started" };
  const { secret, ctx } = started;
  let body: { user_id?: unknown; channel_id?: unknown; context?: { payload?: unknown; sig?: unknown } };
  try {
    body = JSON.parse(Buffer.from(raw).toString("utf8"));
  } catch {
    return json(400, { ephemeral_text: "unreadable request" });
  }
  const decoded = verifyDecision(secret, body.context?.payload, body.channel_id, body.context?.sig);
  if (!decoded) return json(403, { ephemeral_text: "This button was not made by this agent." });
  const result = await ctx.decide(
    decoded.requestId,
    { decision: decoded.decision },
    String(body.user_id ?? ""),
  );
  if (!result.ok) return json(200, { ephemeral_text: result.message });
  return json(200, { update: { message: `${decisionLabel(decoded.decision)}d.`, props: {} } });
}
