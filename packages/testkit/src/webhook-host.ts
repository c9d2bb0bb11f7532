// Serves a gateway's webhook routes on 127.0.0.1 the way the agentsvc server mounts them: the
// exact request bytes, lower-case headers, the URL and the public URL, so a webhook gateway can be
// tested over real HTTP without the whole server. Typed structurally (no session-core dependency).
import type { IncomingMessage, ServerResponse } from "node:http";
import { type FakeServer, listenLocal } from "./server.js";

export interface HostedWebhookRequest {
  method: "GET" | "POST";
  rawBody: Uint8Array;
  headers: Readonly<Record<string, string>>;
  url: string;
  publicUrl: string;
  query: URLSearchParams;
}

export interface HostedWebhookRoute {
  method: "GET" | "POST";
  handle(request: HostedWebhookRequest): Promise<{
    status: number;
    headers?: Record<string, string>;
    body?: string;
  }>;
}

export interface WebhookHost extends FakeServer {
  /** `http://127.0.0.1:<port>/webhooks/<type>` */
  urlOf(type: string): string;
  /** Mounts (or replaces, on a gateway restart) the routes of one type. */
  mount(type: string, routes: readonly HostedWebhookRoute[] | undefined): void;
}

export interface WebhookHostOptions {
  /** Stands in for the server's `publicBaseUrl`: `publicUrl` = this + path + query. */
  publicBaseUrl?: string;
}

/** A 127.0.0.1 server answering `/webhooks/<type>` with the mounted routes (404 otherwise). */
export async function hostWebhooks(options: WebhookHostOptions = {}): Promise<WebhookHost> {
  const mounted = new Map<string, readonly HostedWebhookRoute[]>();
  const server = await listenLocal((req, res) => {
    void serve(req, res, mounted, options, server.url).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  return {
    ...server,
    urlOf: (type) => `${server.url}/webhooks/${type}`,
    mount: (type, routes) => {
      if (routes) mounted.set(type, routes);
      else mounted.delete(type);
    },
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  mounted: Map<string, readonly HostedWebhookRoute[]>,
  options: WebhookHostOptions,
  base: string,
): Promise<void> {
  const url = new URL(req.url ?? "/", base);
  const type = /^\/webhooks\/([a-z0-9-]+)$/.exec(url.pathname)?.[1];
  const route = type ? mounted.get(type)?.find((r) => r.method === req.method) : undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (!route) {
    res.writeHead(404).end();
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  const answer = await route.handle({
    method: route.method,
    rawBody: new Uint8Array(Buffer.concat(chunks)),
    headers,
    url: url.toString(),
    publicUrl: options.publicBaseUrl
      ? `${options.publicBaseUrl.replace(/\/$/, "")}${url.pathname}${url.search}`
      : url.toString(),
    query: url.searchParams,
  });
  res.writeHead(answer.status, answer.headers).end(answer.body ?? "");
}
