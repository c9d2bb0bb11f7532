// Request parsing shared by the HTTP fakes: Bot-API-style methods accept JSON, form or query params.
import type { IncomingMessage, ServerResponse } from "node:http";

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Parameters from the query string and a JSON or form-urlencoded body; JSON-looking form values are parsed. */
export async function readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const raw = (await readBody(req)).toString("utf8");
  if (!raw) return params;
  const type = req.headers["content-type"] ?? "";
  if (type.includes("application/json")) return { ...params, ...(JSON.parse(raw) as object) };
  for (const [k, v] of new URLSearchParams(raw)) params[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
  return params;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}
