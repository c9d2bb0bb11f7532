// Prometheus metrics (prom-client), loaded only when `agentsvc.config` has a `metrics` block. Label
// values are bounded: route patterns (never the requested path), methods, status codes, run
// outcomes, declared tool and gateway names; never user ids, thread ids or text.
import { createHash, timingSafeEqual } from "node:crypto";
import type { ModelAttempt, RunHandle } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import type { MetricsConfig } from "@agentsvc/config-schema";
import type { GatewaySession, SessionObserver } from "@agentsvc/session-core";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { SchedulerObserver } from "@agentsvc/scheduler";
import { readEnv } from "./env.js";
import { scheduleMetrics } from "./schedule-metrics.js";
import { routeOf } from "./route-pattern.js";
import type { SpendObserver } from "./spend-meter.js";
import { spendMetrics } from "./spend-metrics.js";

export interface ServerMetrics extends SpendObserver {
  /** Counts and times every request (outermost, so refusals by later middleware count too). */
  readonly middleware: MiddlewareHandler;
  /** Counts a run's outcome, duration and tool calls once it settles. */
  observeRun(handle: RunHandle, startedAt: number): void;
  /** The session and store the gauges read at each scrape (known once they exist). */
  watch(input: Watched): void;
  /** Counts inbound messages and outbox sends (handed to the gateway session). */
  readonly observer: SessionObserver;
  /** One model call settled (see metered-model.ts). */
  observeModelCall(model: string, outcome: ModelCallOutcome, seconds: number, usage: TokenUsage): void;
  /** One attempt of a model call ended (the RunManager's `onModelAttempt`): counted by its outcome or error code. */
  observeModelAttempt(attempt: Pick<ModelAttempt, "modelId" | "outcome">): void;
  /** One gateway-session write transaction committed (see metered-store.ts). */
  observeCommit(seconds: number): void;
  /** Schedule ticks by outcome and their lateness (handed to the schedule runner). */
  readonly schedules: SchedulerObserver;
  /** Mounts `GET <path>` on the service's app (unless a separate port serves it). */
  mount(app: Hono): void;
  /** Starts the separate loopback listener when `port` is set; returns its URL. */
  listen(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** How a model call ended: `cancelled` when its run was cancelled (a Stop, a client that hung up). */
export type ModelCallOutcome = "ok" | "error" | "cancelled";

/**
 * The codes a failed or cancelled turn is counted by (`agentsvc_turn_failures_total`): the model
 * layer's and the run loop's own; any other code counts as `other`, so the label stays bounded.
 */
const FAILURE_CODES = new Set([
  "rate_limited",
  "overloaded",
  "context_length",
  "auth",
  "bad_request",
  "timeout",
  "cancelled",
  "model_error",
  "max_steps",
  "budget_exceeded",
  "persist_failed",
  "internal_error",
]);

type PromClient = typeof import("prom-client");
type Watched = { session: Pick<GatewaySession, "status" | "queueDepths">; store: ChatDb };
export interface TokenUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}

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
    failures: new prom.Counter({
      name: "agentsvc_turn_failures_total",
      help: "Failed and cancelled turns by outcome (failed, cancelled) and error code (rate_limited, overloaded, context_length, auth, bad_request, timeout, cancelled, model_error, max_steps, persist_failed, internal_error, other)",
      labelNames: ["outcome", "code"] as const,
      registers: [registry],
    }),
    toolCalls: new prom.Counter({
      name: "agentsvc_tool_calls_total",
      help: "Tool calls that ran, by tool name and outcome (ok, error)",
      labelNames: ["tool", "outcome"] as const,
      registers: [registry],
    }),
  };
  const models = {
    duration: new prom.Histogram({
      name: "agentsvc_model_call_duration_seconds",
      help: "Model call latency, from the request to the end of its stream, by model and outcome (ok, error, cancelled)",
      labelNames: ["model", "outcome"] as const,
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80],
      registers: [registry],
    }),
    attempts: new prom.Counter({
      name: "agentsvc_model_attempts_total",
      help: "Model call attempts (each retry and fallback is one) by model and outcome: ok, or the error code (the turn failure codes; any other is other)",
      labelNames: ["model", "outcome"] as const,
      registers: [registry],
    }),
    tokens: new prom.Counter({
      name: "agentsvc_model_tokens_total",
      help: "Tokens the provider reported, by model and type (input, output)",
      labelNames: ["model", "type"] as const,
      registers: [registry],
    }),
  };
  const spend = spendMetrics(prom, registry);
  const gateways = {
    inbound: new prom.Counter({
      name: "agentsvc_gateway_inbound_total",
      help: "Inbound gateway messages by gateway and outcome (accepted, duplicate; refused: a webhook request turned away)",
      labelNames: ["gateway", "outcome"] as const,
      registers: [registry],
    }),
    sending: new prom.Gauge({
      name: "agentsvc_outbox_sending",
      help: "Outbox pieces being sent to their platform right now, by gateway",
      labelNames: ["gateway"] as const,
      registers: [registry],
    }),
    sends: new prom.Counter({
      name: "agentsvc_outbox_sends_total",
      help: "Send attempts by gateway and outcome (sent, retry, dead, held)",
      labelNames: ["gateway", "outcome"] as const,
      registers: [registry],
    }),
    reconnects: new prom.Counter({
      name: "agentsvc_gateway_reconnects_total",
      help: "Times a connection gateway re-established its platform connection after losing it, by gateway",
      labelNames: ["gateway"] as const,
      registers: [registry],
    }),
  };
  const commits = new prom.Histogram({
    name: "agentsvc_store_commit_duration_seconds",
    help: "Gateway session write transactions (a turn's end with its reply, a queued reply), begin to commit",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  let watched: Watched | undefined;
  new prom.Gauge({
    name: "agentsvc_gateway_queue_depth",
    help: "Messages waiting behind a running turn of their thread, by gateway",
    labelNames: ["gateway"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [gateway, depth] of Object.entries(watched?.session.queueDepths() ?? {}))
        this.set({ gateway }, depth);
    },
  });
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
  // A connection that is up but deaf (#43 item 11): the inbound age grows while the call age stays fresh.
  new prom.Gauge({
    name: "agentsvc_gateway_last_inbound_age_seconds",
    help: "Seconds since the platform last sent the gateway anything (events it ignores included); absent until the first",
    labelNames: ["gateway"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, s] of Object.entries(watched?.session.status() ?? {}))
        if (s.lastInboundAgeSeconds !== undefined) this.set({ gateway: name }, s.lastInboundAgeSeconds);
    },
  });
  new prom.Gauge({
    name: "agentsvc_gateway_last_platform_call_age_seconds",
    help: "Seconds since a call of the gateway to its platform last worked (a reply, a poll, a heartbeat ACK); absent until the first",
    labelNames: ["gateway"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, s] of Object.entries(watched?.session.status() ?? {}))
        if (s.lastPlatformCallAgeSeconds !== undefined)
          this.set({ gateway: name }, s.lastPlatformCallAgeSeconds);
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
  const schedules = scheduleMetrics(prom, registry);
  let server: { close(cb: () => void): void } | undefined;

  return {
    schedules,
    middleware: async (c, next) => {
      const started = performance.now();
      await next();
      const seconds = (performance.now() - started) / 1000;
      const method = c.req.method;
      const pattern = routeOf(c);
      http.requests.inc({ route: pattern, method, status: String(c.res.status) });
      http.duration.observe({ route: pattern, method }, seconds);
      // A webhook (or http channel) request turned away: bad signature, too large, malformed.
      const gateway = gatewayOfRoute(c, pattern);
      // Only registered names: a label never takes a value a caller made up.
      const known = gateway !== undefined && watched?.session.status()[gateway] !== undefined;
      if (known && gateway && c.res.status >= 400 && c.res.status < 500)
        gateways.inbound.inc({ gateway, outcome: "refused" });
    },
    observer: {
      onInbound: (gateway, outcome) => gateways.inbound.inc({ gateway, outcome }),
      onSending: (gateway) => gateways.sending.inc({ gateway }),
      onSent: (gateway, outcome) => {
        gateways.sending.dec({ gateway });
        gateways.sends.inc({ gateway, outcome });
      },
      onReconnected: (gateway) => gateways.reconnects.inc({ gateway }),
    },
    observeModelCall(model, outcome, seconds, usage) {
      models.duration.observe({ model, outcome }, seconds);
      if (usage.inputTokens) models.tokens.inc({ model, type: "input" }, usage.inputTokens);
      if (usage.outputTokens) models.tokens.inc({ model, type: "output" }, usage.outputTokens);
    },
    observeModelAttempt({ modelId, outcome }) {
      models.attempts.inc({
        model: modelId,
        outcome: outcome === "ok" || FAILURE_CODES.has(outcome) ? outcome : "other",
      });
    },
    observeSpend: spend.observeSpend,
    observeBudget: spend.observeBudget,
    observeCommit(seconds) {
      commits.observe(seconds);
    },
    observeRun(handle, startedAt) {
      void handle.done.then((result) => {
        turns.total.inc({ outcome: result.status });
        turns.duration.observe({ outcome: result.status }, (performance.now() - startedAt) / 1000);
        if (result.status === "failed" || result.status === "cancelled") {
          const code = result.error?.code ?? (result.status === "cancelled" ? "cancelled" : "internal_error");
          turns.failures.inc({ outcome: result.status, code: FAILURE_CODES.has(code) ? code : "other" });
        }
        for (const m of result.newMessages)
          if (m.role === "tool")
            turns.toolCalls.inc({ tool: m.toolName, outcome: m.isError ? "error" : "ok" });
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

/** The gateway a webhook route belongs to: `/webhooks/<type>` or the http channel's `/gateways/:name/events`. */
function gatewayOfRoute(c: Context, pattern: string): string | undefined {
  if (pattern.startsWith("/webhooks/")) return pattern.slice("/webhooks/".length).split("/")[0] || undefined;
  if (pattern === "/gateways/:gatewayName/events") return c.req.param("gatewayName");
  return undefined;
}

/** `Authorization: Bearer <key>` or `X-API-Key: <key>`, compared in constant time. */
function keyMatches(c: Context, key: string): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  const given = bearer ?? c.req.header("x-api-key") ?? "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(key));
}
