// New comments through the REST API: the issue comments route for an issue thread, the review-comment
// replies route (always at the thread's root comment) for an inline review thread.
import { GatewaySendError, retryAfterMs } from "@agentsvc/session-core";
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
  if (!res.ok) throw restError(res, text);
  try {
    const id = (JSON.parse(text) as { id?: number }).id;
    return id === undefined ? undefined : String(id);
  } catch {
    return undefined;
  }
}

/**
 * Rate limits (429, or 403 with `retry-after` or an exhausted `x-ratelimit-remaining`) wait as told;
 * 5xx retry; any other 4xx (bad token, no access, locked issue, validation) never succeeds.
 */
function restError(res: Response, text: string): GatewaySendError {
  const detail = `${res.status} ${text.slice(0, 300)}`;
  const retryAfter = retryAfterMs(res.headers.get("retry-after"));
  const remaining = res.headers.get("x-ratelimit-remaining");
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  if (res.status === 429 || (res.status === 403 && (retryAfter !== undefined || remaining === "0"))) {
    const untilReset =
      Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined;
    return new GatewaySendError(`github: rate limited ${detail}`, {
      status: res.status,
      retryAfterMs: retryAfter ?? untilReset ?? 60_000,
    });
  }
  const permanent = res.status >= 400 && res.status < 500 && res.status !== 408;
  return new GatewaySendError(`github: comment call answered ${detail}`, { status: res.status, permanent });
}
