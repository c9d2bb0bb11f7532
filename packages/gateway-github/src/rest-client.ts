// New comments through the REST API: the issue comments route for an issue thread, the review-comment
// replies route (always at the thread's root comment) for an inline review thread.
import { GatewaySendError } from "@agentsvc/session-core";
import { type FailedAnswer, sendErrorFor } from "@agentsvc/webhook-kit";
import type { GitHubThread } from "./thread-id.js";

export interface RestTarget {
  apiBaseUrl: string;
  token: string;
}

export async function postComment(
  target: RestTarget,
  thread: GitHubThread,
  pullNumber: number | undefined,
  body: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const repo = `${encodeURIComponent(thread.owner)}/${encodeURIComponent(thread.repo)}`;
  let path: string;
  if (thread.kind === "issue") path = `/repos/${repo}/issues/${thread.number}/comments`;
  else if (pullNumber !== undefined)
    path = `/repos/${repo}/pulls/${pullNumber}/comments/${thread.root}/replies`;
  else
    throw new GatewaySendError(`github: no pull request number known for review thread ${thread.root}`, {
      permanent: true,
    });
  const res = await fetch(`${target.apiBaseUrl.replace(/\/$/, "")}${path}`, {
    method: "POST",
    headers: {
      accept: "application/vnd.github+json",
      authorization: `Bearer ${target.token}`,
      "content-type": "application/json",
      "user-agent": "agentsvc-gateway-github",
      "x-github-api-version": "2022-11-28",
    },
    body: JSON.stringify({ body }),
    ...(signal ? { signal } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw restError({ status: res.status, headers: res.headers, body: text });
  try {
    const id = (JSON.parse(text) as { id?: number }).id;
    return id === undefined ? undefined : String(id);
  } catch {
    return undefined;
  }
}

/**
 * GitHub also throttles with 403: a secondary limit (with `retry-after`) or an exhausted primary
 * quota (`x-ratelimit-remaining: 0`, wait until `x-ratelimit-reset`; 60 s when neither is given).
 */
function restError(answer: FailedAnswer): GatewaySendError {
  const h = answer.headers;
  const reset = Number(h.get("x-ratelimit-reset"));
  const untilReset = Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined;
  const throttled =
    answer.status === 403 && (h.get("retry-after") !== null || h.get("x-ratelimit-remaining") === "0");
  return sendErrorFor(answer, {
    platform: "github",
    call: "comment call",
    throttled,
    defaultRetryAfterMs: untilReset ?? 60_000,
  });
}
