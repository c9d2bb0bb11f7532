// Bot-API-style parameters: methods accept query, JSON or form-urlencoded bodies alike.
import type { IncomingMessage } from "node:http";
import { readBody } from "./http-util.js";

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
