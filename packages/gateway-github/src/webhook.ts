// The webhook route, on webhook-kit's webhookRoute: verify (X-Hub-Signature-256 over the raw bytes,
// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries), parse (event,
// payload, the comment for the bot, and the replay checks) and handle (record, then acknowledge).
//
// `X-GitHub-Delivery` is not covered by the signature, so nothing here trusts it: the dedup key is
// the comment id inside the signed body; a comment older than the dedup window is refused (its
// record may be gone); a decision written before the request now pending does not decide it.
import { DEFAULT_DEDUP_WINDOW_MS, type GatewayContext, matchDecisionText } from "@agentsvc/adapter-kit";
import { SIGNATURE_HEADER, verifyHubSignature, webhookRoute } from "@agentsvc/webhook-kit";
import { COMMENT_EVENTS, type Comment, readComment, readPayload } from "./inbound.js";
import { threadId } from "./thread.js";

/** Finished inbox records (dedup keys) are kept this long by default; older comments are refused. */
export const DEDUP_WINDOW_MS = DEFAULT_DEDUP_WINDOW_MS;

export interface GithubWebhookParts {
  context(): GatewayContext | undefined;
  secret(): string;
  botName(): string;
  /** The request id last sent as text in a thread (remembered by `send`). */
  pendingRequest(thread: string, ctx: GatewayContext): Promise<string | undefined>;
  handle(comment: Comment & { threadId: string }, ctx: GatewayContext): Promise<void>;
}

export function githubWebhook(parts: GithubWebhookParts) {
  return webhookRoute<Comment & { threadId: string }>({
    context: parts.context,
    verify: (req) => verifyHubSignature(parts.secret(), req.headers[SIGNATURE_HEADER], req.rawBody),
    parse: async (req, ctx) => {
      const event = req.headers["x-github-event"] ?? "";
      if (!COMMENT_EVENTS.has(event)) return { ignore: `event ${event}` };
      const payload = readPayload(req.rawBody, req.headers["content-type"] ?? "");
      if (!payload) return { invalid: "a signed delivery with an unreadable body" };
      const comment = readComment(event, payload, parts.botName());
      if ("ignore" in comment) return comment;
      const thread = threadId(comment.thread);
      const refused = await refusal(comment, await parts.pendingRequest(thread, ctx), ctx);
      return refused ? { ignore: refused } : { ...comment, threadId: thread };
    },
    handle: (comment, _req, ctx) => parts.handle(comment, ctx),
  });
}

/** Why a signed comment is still refused: too old, or a decision meant for an earlier request. */
async function refusal(
  c: Comment,
  requestId: string | undefined,
  ctx: GatewayContext,
): Promise<string | undefined> {
  if (Date.now() - c.writtenAt > DEDUP_WINDOW_MS) return "older than the dedup window";
  const request = requestId ? await ctx.interaction(requestId) : undefined;
  if (request?.status !== "open" || !matchDecisionText(c.text, request.allowedDecisions)) return undefined;
  // GitHub's timestamps have whole seconds.
  if (Math.floor(c.writtenAt / 1000) < Math.floor(request.createdAt / 1000))
    return "a decision written before the pending request was made";
  return undefined;
}
