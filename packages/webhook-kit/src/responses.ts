// The plain-text answer every webhook route gives for acknowledgements and refusals.
import type { WebhookResponse } from "@agentsvc/adapter-kit";

/** `status` with a plain-text body (empty by default: a refusal tells an attacker nothing). */
export function plainResponse(status: number, body = ""): WebhookResponse {
  return { status, headers: { "content-type": "text/plain; charset=utf-8" }, body };
}
