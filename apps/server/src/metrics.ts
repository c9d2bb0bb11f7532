// Prometheus metrics (prom-client), loaded only when `agentsvc.config` has a `metrics` block. Label
// values are bounded: route patterns (never the requested path), methods, status codes, run
// outcomes, declared tool and gateway names; never user ids, thread ids or text.
import { createHash, timingSafeEqual } from "node:crypto";
import type { RunHandle } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import type { MetricsConfig } from "@agentsvc/config-schema";
import type { GatewaySession } from "@agentsvc/session-core";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Logger } from "pino";
import { readEnv } from "./env.js";

export interface ServerMetrics {
  /** Counts and times every request (outermost, so refusals by later middleware count too). */
  readonly middleware: MiddlewareHandler;
  /** Counts a run's outcome, duration and tool calls once it settles. */
  observeRun(handle: RunHandle, startedAt: number): void;
  /** The session and store the gauges read at each scrape (known once they exist). */
  watch(input: { session: Pick<GatewaySession, "status">; store: ChatDb }): void;
  /** Mounts `GET <path>` on the service's app (unless a separate port serves it). */
  mount(app: Hono): void;
  /** Starts the separate loopback listener when `port` is set; returns its URL. */
  listen(): Promise<string | undefined>;
  close(): Promise<void>;
}

type PromClient = typeof import("prom-client");

export async function createMetrics(
  config: MetricsConfig,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<ServerMetrics> {
  const prom: PromClient = await import("prom-client");
  const registry = new prom.Registry();
  // Process CPU, memory, handles, GC and the event-loop lag (nodejs_eventloop_lag_*).
  prom.collectDefaultMetrics({ register: registry });
  const http = {
    requests: new prom.Counter({
      name: "agentsvc_http_requests_total",
      help: "HTTP requests by route pattern, method and status",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    duration: new prom.Histogram({
      name: "agentsvc_http_request_duration_seconds",
      help: "Time to the response head, by route pattern and method",
      labelNames: ["route", "method"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
  const turns = {
    total: new prom.Counter({
      name: "agentsvc_turns_total",
      help: "Agent turns by outcome (completed, failed, cancelled, suspended)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    duration: new prom.Histogram({
      name: "agentsvc_turn_duration_seconds",
      help: "Turn duration from start (or resume) to its end or suspension, by outcome",
      labelNames: ["outcome"] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    toolCalls: new prom.Counter({
      name: "agentsvc_tool_calls_total",
      help: "Tool calls the model made, by tool name",
      labelNames: ["tool"] as const,
      registers: [registry],
    }),
  };
  let watched: { session: Pick<GatewaySession, "status">; store: ChatDb } | undefined;
  new prom.Gauge({
    name: "agentsvc_gateway_up",
    help: "1 while a gateway runs, 0 once it was stopped (e.g. rejected credentials)",
    labelNames: ["gateway"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, s] of Object.entries(watched?.session.status() ?? {}))
        this.set({ gateway: name }, s.state === "running" ? 1 : 0);
    },
  });
  new prom.Gauge({
    name: "agentsvc_outbox_pieces",
    help: "Gateway replies waiting (pending) or given up on (dead, see agentsvc outbox), by gateway",
    labelNames: ["gateway", "status"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (!watched) return;
      for (const row of await watched.store.outbox.countsByGateway())
        this.set({ gateway: row.gateway, status: row.status }, row.count);
    },
  });

  const apiKey = config.apiKeyEnvVar ? readEnv(env, config.apiKeyEnvVar) : undefined;
  const route = new Hono().get(config.path, async (c) => {
    if (apiKey !== undefined && !keyMatches(c, apiKey))
      return c.json({ error: { code: "unauthorized", message: "metrics need the API key" } }, 401);
    return c.body(await registry.metrics(), 200, { "content-type": registry.contentType });
  });
  let server: { close(cb: () => void): void } | undefined;

  return {
    middleware: async (c, next) => {
      const started = performance.now();
      await next();
      const seconds = (performance.now() - started) / 1000;
      const method = c.req.method;
      const pattern = routeOf(c);
      http.requests.inc({ route: pattern, method, status: String(c.res.status) });
      http.duration.observe({ route: pattern, method }, seconds);
    },
    observeRun(handle, startedAt) {
      void handle.done.then((result) => {
        turns.total.inc({ outcome: result.status });
        turns.duration.observe({ outcome: result.status }, (performance.now() - startedAt) / 1000);
        for (const call of result.toolCalls) turns.toolCalls.inc({ tool: call.name });
      });
    },
    watch(input) {
      watched = input;
    },
    mount(app) {
      if (config.port === undefined) app.route("/", route);
    },
    async listen() {
      if (config.port === undefined) return undefined;
      const { serve } = await import("@hono/node-server");
      const port = config.port;
      const url = await new Promise<string>((resolve, reject) => {
        const s = serve({ fetch: route.fetch, port, hostname: "127.0.0.1" }, (info) =>
          resolve(`http://127.0.0.1:${info.port}${config.path}`),
        );
        s.once("error", reject);
        server = s;
      });
      logger.info({ url }, `metrics at ${url}`);
      return url;
    },
    async close() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

/** The pattern of the route that answered (`/agent/invoke`, `/gateways/:name/events`), `unmatched` for a 404 no route took. */
function routeOf(c: Context): string {
  const route = matchedRoutes(c)[c.req.routeIndex];
  const path = route?.path ?? "";
  if (c.res.status === 404 && (path === "*" || path === "/*" || path === "")) return "unmatched";
  return path || "unmatched";
}

/** `Authorization: Bearer <key>` or `X-API-Key: <key>`, compared in constant time. */
function keyMatches(c: Context, key: string): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  const given = bearer ?? c.req.header("x-api-key") ?? "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(key));
}
