// A signing client and a real server on 127.0.0.1 for the http gateway tests.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { requestSignatureHeaders, signatureHeaders } from "../src/index.js";

export interface Server {
  base: string;
  close(): Promise<void>;
}

export async function listen(app: Hono): Promise<Server> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      resolve({
        base: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}

export interface SignedOptions {
  secret: string;
  body?: unknown;
  /** Raw body bytes sent as is (overrides `body`). */
  raw?: Uint8Array;
  timestamp?: number;
  /** Flip one byte of the body after signing. */
  tamper?: boolean;
  omit?: "timestamp" | "signature";
  /** `v1`: the deprecated body-only scheme. Default `v2` (method, target and body). */
  scheme?: "v1" | "v2";
}

export async function signed(
  base: string,
  method: "GET" | "POST",
  path: string,
  o: SignedOptions,
): Promise<Response> {
  const bytes =
    o.raw ?? (o.body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(o.body)));
  const ts = o.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> =
    o.scheme === "v1"
      ? signatureHeaders(o.secret, bytes ?? `${method} ${path}`, ts)
      : requestSignatureHeaders(o.secret, { method, target: path, ...(bytes ? { body: bytes } : {}) }, ts);
  if (o.omit === "timestamp") delete headers["X-Agentsvc-Timestamp"];
  if (o.omit === "signature") delete headers["X-Agentsvc-Signature"];
  let sent = bytes;
  if (bytes && o.tamper) {
    sent = Uint8Array.from(bytes);
    const at = Math.floor(sent.length / 2);
    sent[at] = (sent[at] ?? 0) ^ 0x01;
  }
  if (sent) headers["content-type"] = "application/json";
  return fetch(`${base}${path}`, {
    method,
    headers,
    ...(sent ? { body: sent } : {}),
    signal: AbortSignal.timeout(10_000),
  });
}

export interface JsonBody {
  success?: boolean;
  error: { code: string; message: string };
  interaction?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The response body as JSON (tests read fields of known responses). */
export async function body(res: Response): Promise<JsonBody> {
  return (await res.json()) as JsonBody;
}
