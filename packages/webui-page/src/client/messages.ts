// What the page says when a call fails: a plain sentence with what to do, chosen by the error's
// code. The server's own message is written for developers (it names ids and fields), so it never
// reaches the status line.

const PLAIN: Record<string, string> = {
  approval_pending: "Approve or reject the pending request first.",
  thread_busy: "A reply is still running; wait for it to finish or press Stop.",
  store_unavailable: "The chat's storage is busy for a moment; try again in a few seconds.",
  shutting_down: "The chat service is restarting; try again in a moment.",
  too_many_attempts: "Too many sign-in attempts; wait a while, then try again.",
  invalid_credentials: "Wrong username or password.",
  forbidden: "That request is no longer waiting for you; reload the page to see where things stand.",
  not_found: "That conversation no longer exists; pick another one or start a new one.",
  too_large: "That message is too long to send; shorten it and try again.",
  network: "Could not reach the chat service; check the connection and try again.",
  host_not_allowed: "This address is not allowed by the chat service; open it by its usual address.",
  cross_site: "The chat service refused a request from another site; reload the page.",
  api_key_required: "The chat needs a valid API key; enter it with the key button.",
  sign_in_required: "Please sign in again.",
  identity_reserved:
    "This account cannot use the chat: another part of the service runs under its name. Ask whoever runs it to rename the account.",
};

/** Why a reply failed (the stream's `error` code): the model layer's codes, in words. */
const FAILED: Record<string, string> = {
  rate_limited: "The model is getting too many requests; try again in a moment.",
  overloaded: "The model is overloaded right now; try again in a minute.",
  timeout: "The model took too long to answer; try again.",
  context_length: "This conversation is too long for the model; start a new one.",
  auth: "The chat service could not sign in to its model; tell whoever runs it.",
  bad_request: "The model refused this request; try rewording it.",
  max_steps: "The agent took too many steps without an answer; try a simpler request.",
};

/**
 * The note under a failed reply: a sentence per code, never the server's text (it may hold the
 * provider's). A rate limit with a known wait says how long.
 */
export function failureMessage(code: string, retryAfterMs?: number): string {
  // A budget in agentsvc.config is spent: it resets at a UTC midnight or month start.
  if (code === "budget_exceeded")
    return `This chat has used up its AI budget for now; try again ${
      retryAfterMs === undefined
        ? "later"
        : retryAfterMs < 7_200_000
          ? `in ${Math.max(1, Math.ceil(retryAfterMs / 60_000))} min`
          : `in ${Math.ceil(retryAfterMs / 3_600_000)} h`
    }.`;
  if (code === "rate_limited" && retryAfterMs !== undefined)
    return `The model is getting too many requests; try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s.`;
  return FAILED[code] ?? PLAIN[code] ?? "The model could not answer; please try again.";
}

/** A sentence a person can act on, for an API error code (HTTP status as a fallback hint). */
export function plainMessage(code: string, status = 0): string {
  const known = PLAIN[code];
  if (known) return known;
  if (status >= 500) return "The chat service ran into a problem; please try again.";
  return "That did not work; please try again.";
}
