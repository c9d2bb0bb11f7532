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

/** The JSON error response for anything a handler throws; unknown errors become a 500 without internals. */
export function errorResponse(c: Context, error: unknown): Response {
  if (error instanceof AgentsvcError) {
    return c.json(errorBody(error.code, error.message), error.status as ContentfulStatusCode);
  }
  console.error("agent-routes: unexpected error", error);
  return c.json(errorBody("internal_error", "an unexpected error occurred; see the server log"), 500);
}
