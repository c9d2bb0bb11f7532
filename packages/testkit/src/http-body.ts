// Bot-API-style parameters: methods accept query, JSON, form-urlencoded or multipart bodies alike.
import type { IncomingMessage } from "node:http";
import { readBody } from "./http-util.js";

/** A file part of a multipart/form-data body (an upload). */
export interface UploadedFile {
  name: string;
  type: string;
  bytes: Buffer;
}

/**
 * Parameters from the query string and a JSON, form-urlencoded or multipart/form-data body;
 * JSON-looking form values are parsed, file parts become `UploadedFile`s.
 */
export async function readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const body = await readBody(req);
  const type = req.headers["content-type"] ?? "";
  if (type.includes("multipart/form-data")) return { ...params, ...(await multipartParams(body, type)) };
  const raw = body.toString("utf8");
  if (!raw) return params;
  if (type.includes("application/json")) return { ...params, ...(JSON.parse(raw) as object) };
  for (const [k, v] of new URLSearchParams(raw)) params[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
  return params;
}

async function multipartParams(body: Buffer, type: string): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  // The WHATWG parser (undici) reads the parts as a browser would send them.
  const form = await new Response(new Uint8Array(body), { headers: { "content-type": type } }).formData();
  for (const [k, v] of form) {
    if (typeof v === "string") params[k] = /^[[{]/.test(v) ? JSON.parse(v) : v;
    else
      params[k] = {
        name: v.name,
        type: v.type,
        bytes: Buffer.from(await v.arrayBuffer()),
      } satisfies UploadedFile;
  }
  return params;
}
