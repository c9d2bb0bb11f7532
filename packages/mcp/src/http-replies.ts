// Errors on the MCP route are JSON-RPC error objects, the shape MCP clients parse (the SDK's own
// transport answers in this shape too); `data.code` carries a stable string code for people.

import { drainPastLimit, readNodeBody, unreadNodeRequest } from "@agentsvc/agent-core";

export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  data: { code: string },
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message, data } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export type BodyRead =
  | { ok: true; text: string }
  | { ok: false; tooLarge: true }
  /** The body failed or ended early (the client hung up mid-body): `cause` is the stream's error message. */
  | { ok: false; tooLarge?: undefined; cause: string };

/**
 * Reads a request body but stops at `limit` bytes (declared or streamed), so nothing unbounded is
 * buffered. Under @hono/node-server (`env` holds Node's request) it is read from Node's request,
 * and a refused body is drained there (agent-core's readNodeBody), so a client still sending reads
 * the 413 instead of a reset. A body that fails mid-way resolves with its cause instead of rejecting.
 */
export async function readBoundedBody(req: Request, limit: number, env?: unknown): Promise<BodyRead> {
  try {
    return await readWithin(req, limit, env);
  } catch (error) {
    return { ok: false, cause: error instanceof Error ? error.message : String(error) };
  }
}

async function readWithin(req: Request, limit: number, env: unknown): Promise<BodyRead> {
  const incoming = unreadNodeRequest(env);
  if (incoming) {
    const read = await readNodeBody(incoming, limit);
    return read.ok
      ? { ok: true, text: Buffer.from(read.bytes).toString("utf8") }
      : { ok: false, tooLarge: true };
  }
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > limit) return { ok: false, tooLarge: true };
  if (!req.body) return { ok: true, text: "" };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      discardRest(reader).catch(() => {});
      return { ok: false, tooLarge: true };
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}

/**
 * Reads and drops what is left of a refused body while the 413 goes out (a fetch Request's body,
 * not Node's: a cancel may not reach what feeds it).
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  for (;;) if ((await reader.read()).done) return;
}

function isJsonContentType(value: string | null): boolean {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}

/**
 * A POST refused from its headers alone, before its body is read, in the SDK transport's order and
 * with its words: an Accept that does not list both answer types (406: the client MUST list
 * application/json and text/event-stream, MCP transport spec 2025-11-25, basic/transports, "Sending
 * Messages to the Server", item 2), then a Content-Type that is not JSON (415). The unread body is
 * drained and the connection closed, as after a 413, so a client still sending reads the refusal
 * instead of a reset.
 */
export function refusedByHeaders(req: Request, env: unknown): Response | undefined {
  const accept = req.headers.get("accept") ?? "";
  // A list of media ranges: a substring test, as the SDK's.
  if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
    return refuseUnread(
      env,
      406,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
      "not_acceptable",
    );
  if (!isJsonContentType(req.headers.get("content-type")))
    return refuseUnread(
      env,
      415,
      "Unsupported Media Type: Content-Type must be application/json",
      "unsupported_media_type",
    );
  return undefined;
}

function refuseUnread(env: unknown, status: number, message: string, code: string): Response {
  const incoming = unreadNodeRequest(env);
  if (incoming) drainPastLimit(incoming);
  return jsonRpcError(status, -32000, message, { code }, { connection: "close" });
}
