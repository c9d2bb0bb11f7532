import { AgentsvcError } from "@agentsvc/agent-core";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface ErrorBody {
  success: false;
  error: { code: string; message: string };
}

function errorBody(code: string, message: string): ErrorBody {
  return { success: false, error: { code, message } };
}

/** Answers with the error envelope every route of the API uses. */
export function fail(c: Context, status: number, code: string, message: string): Response {
  return c.json(errorBody(code, message), status as ContentfulStatusCode);
}

/** Shorthand for a 400 a person can act on: names the field, what was expected and what came. */
export function badInput(message: string): AgentsvcError {
  return new AgentsvcError("bad_request", message, 400);
}

/** Maps anything thrown in a route to a status and the envelope; unknown errors never leak details. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (err instanceof AgentsvcError) {
    const status = err.status >= 400 && err.status < 600 ? err.status : 500;
    return { status, body: errorBody(err.code, err.message), unexpected: status >= 500 };
  }
  // Hono's HTTPException (thrown by its own helpers) carries a status; keep 4xx ones as they are.
  const status = (err as { status?: unknown })?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return {
      status,
      body: errorBody("bad_request", String((err as Error).message || "bad request")),
      unexpected: false,
    };
  }
  return {
    status: 500,
    body: errorBody("internal_error", "internal error; see the server log"),
    unexpected: true,
  };
}

/** The string form of a JSON value's type, for error messages ("got number"). */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
