// Errors on the MCP route are JSON-RPC error objects, the shape MCP clients parse (the SDK's own
// transport answers in this shape too); `data.code` carries a stable string code for people.

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

export type BodyRead = { ok: true; text: string } | { ok: false; tooLarge: true };

/** Reads a request body but stops at `limit` bytes (declared or streamed), so nothing unbounded is buffered. */
export async function readBoundedBody(req: Request, limit: number): Promise<BodyRead> {
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
 * Reads and drops what is left of a refused body while the 413 goes out. A cancel did not reach
 * the Node request under @hono/node-server's body stream: the request stayed paused, the socket
 * unread, and the close after the 413 waited out the server's 2 s linger and reset the client.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  for (;;) if ((await reader.read()).done) return;
}

export function isJsonContentType(value: string | null): boolean {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}
