// New comments through the REST API: the issue comments route for an issue thread, the review-comment
// replies route (always at the thread's root comment) for an inline review thread.
import {
  fetchForSend,
  GatewaySendError,
  type PlatformAnswer,
  type PlatformRule,
  sendFailure,
} from "@agentsvc/adapter-kit";
import type { GitHubThread } from "./thread.js";

export interface RestTarget {
  apiBaseUrl: string;
  token: string;
  /** The variable the token came from: named when GitHub rejects it (401 Bad credentials). */
  envVar?: string;
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
  const url = `${target.apiBaseUrl.replace(/\/$/, "")}${path}`;
  // The kit's keep-alive transport (a redirect is an answer, not followed); a network failure retried.
  const res = await fetchForSend(
    url,
    {
      method: "POST",
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${target.token}`,
        "content-type": "application/json",
        "user-agent": "agentsvc-gateway-github",
        "x-github-api-version": "2022-11-28",
      },
      body: JSON.stringify({ body }),
    },
    { platform: "github", call: "comment call" },
    signal,
  );
  const text = await res.text();
  if (!res.ok)
    throw sendFailure(
      { status: res.status, retryAfter: res.headers.get("retry-after"), detail: text },
      {
        platform: "github",
        call: "comment call",
        platformRule: rateLimitRule(res.headers),
        ...(target.envVar ? { envVar: target.envVar } : {}),
      },
    );
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
 * https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api
 */
function rateLimitRule(h: PlatformAnswer["headers"]): PlatformRule {
  return (facts) => {
    if (facts.status !== 403 && facts.status !== 429) return undefined;
    const retryAfter = h.get("retry-after");
    if (facts.status === 403 && retryAfter === null && h.get("x-ratelimit-remaining") !== "0")
      return undefined;
    if (retryAfter !== null) return { kind: "retry" };
    const reset = Number(h.get("x-ratelimit-reset"));
    const untilReset =
      Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined;
    return { kind: "retry", retryAfterMs: untilReset ?? 60_000 };
  };
}
