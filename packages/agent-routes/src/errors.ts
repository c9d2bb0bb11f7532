import { AgentsvcError } from "@agentsvc/agent-core";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface ErrorBody {
  success: false;
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { success: false, error: { code, message } };
}

/** An AgentsvcError as it is; anything else is logged and becomes a 500 that tells nothing of its internals. */
export function knownError(error: unknown): AgentsvcError {
  if (error instanceof AgentsvcError) return error;
  console.error("agent-routes: unexpected error", error);
  return new AgentsvcError("internal_error", "an unexpected error occurred; see the server log", 500);
}

/** The JSON error response for anything a handler throws; unknown errors become a 500 without internals. */
export function errorResponse(c: Context, error: unknown): Response {
  const known = knownError(error);
  return c.json(errorBody(known.code, known.message), known.status as ContentfulStatusCode);
}
