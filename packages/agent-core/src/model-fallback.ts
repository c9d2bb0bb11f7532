// Whether a model's failure hands the call to the next fallback model. Reasons that come from
// the model or its account (limits, overload, keys, outages, a request it does not support) do;
// reasons that come from the conversation (too long, a history the provider refuses) or from the
// user (cancel) do not: another model would meet the same history.
import type { TurnError } from "./model-error.js";

const FALLS_BACK = new Set(["rate_limited", "overloaded", "auth", "bad_request", "timeout", "model_error"]);
/** A 400 whose provider text points at the messages or tool-call pairing is about the history. */
const ABOUT_HISTORY = /\bmessages?\b|tool_use|tool_result|tool_call|function_call|\bcontents?\b/i;

export function fallsBack(error: TurnError): boolean {
  if (!FALLS_BACK.has(error.code)) return false;
  if (error.code === "bad_request" && error.detail && ABOUT_HISTORY.test(error.detail)) return false;
  return true;
}
