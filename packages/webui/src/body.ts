import type { Context } from "hono";
import { AgentsvcError, drainPastLimit, readNodeBody, unreadNodeRequest } from "@agentsvc/agent-core";
import { typeName } from "./errors.js";

/** Largest request body the API reads (1 MiB); anything bigger is refused with 413 `too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type JsonObject = Record<string, unknown>;

/** True when the Content-Type names JSON (`application/json`, optionally with parameters or a `+json` suffix). */
function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const media = header.split(";")[0]?.trim().toLowerCase() ?? "";
  return media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));
}

/**
 * 413, closing the connection (as the agent routes and webhooks do): the rest of the body is not
 * wanted, and keep-alive would have to read all of it to reach a next request. The rest is drained
 * first (agent-core's drainPastLimit), so a client still sending reads the 413, not a reset.
 */
function tooLarge(c: Context): AgentsvcError {
  c.header("Connection", "close");
  return new AgentsvcError("too_large", `request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB)`, 413);
}

/**
 * Refuses, from the headers alone, a body the API will never read: a declared length over the limit
 * (413) or a non-JSON content type on a request that has a body (415). Runs before the agent routes
 * too, so cross-site form posts never reach a handler.
 */
export function checkBodyHeaders(c: Context): void {
  const length = c.req.header("content-length");
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) {
    const incoming = unreadNodeRequest(c.env);
    if (incoming) drainPastLimit(incoming);
    throw tooLarge(c);
  }
  const type = c.req.header("content-type");
  const hasBody =
    (length !== undefined && Number(length) > 0) || c.req.header("transfer-encoding") !== undefined;
  if (type === undefined && !hasBody) return;
  if (!isJsonContentType(type)) {
    throw new AgentsvcError(
      "unsupported_media_type",
      `request body must be JSON (Content-Type: application/json); got ${type === undefined ? "no Content-Type" : `"${type}"`}`,
      415,
    );
  }
}

/** Reads the raw body, counting bytes so a body without Content-Length cannot exceed the limit either. */
async function readLimited(c: Context): Promise<string> {
  // Under @hono/node-server straight from Node's request: past the limit it is drained there.
  const incoming = unreadNodeRequest(c.env);
  if (incoming) {
    const read = await readNodeBody(incoming, MAX_BODY_BYTES).catch((err: Error) => {
      throw new AgentsvcError("bad_request", `request body could not be read: ${err.message}`, 400);
    });
    if (!read.ok) throw tooLarge(c);
    return Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength).toString("utf8");
  }
  const stream = c.req.raw.body;
  if (!stream) return "";
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      discardRest(reader).catch(() => {});
      throw tooLarge(c);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString("utf8");
}

/**
 * Reads and drops what is left of a refused body while the 413 goes out (a fetch Request's body,
 * not Node's: a cancel may not reach what feeds it).
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  for (;;) if ((await reader.read()).done) return;
}

/**
 * The request's JSON object body. An empty body counts as `{}` (routes whose fields are all optional
 * may be posted bare); malformed JSON or a non-object is 400.
 */
export async function readJsonObject(c: Context): Promise<JsonObject> {
  checkBodyHeaders(c);
  const text = await readLimited(c);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AgentsvcError("bad_request", `request body is not valid JSON: ${(err as Error).message}`, 400);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new AgentsvcError(
      "bad_request",
      `request body must be a JSON object; got ${typeName(parsed)}`,
      400,
    );
  }
  return parsed as JsonObject;
}
