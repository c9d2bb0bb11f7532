// OpenTelemetry trace export, started only when the standard environment asks for it
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER). Until
// then neither the SDK nor @opentelemetry/api is imported: the packages' spans are no-ops, and
// start-up time and memory stay as they were. Once registered, the api module is handed to
// agent-core and session-core (useOpenTelemetry). The exporter reads the rest of the
// standard variables itself (headers, timeout, compression; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES for the resource).
import { useOpenTelemetry as traceRuns } from "@agentsvc/agent-core";
import { useOpenTelemetry as traceSessions } from "@agentsvc/session-core/host";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { httpTracing } from "./http-tracing.js";

export interface Tracing {
  /** A server span per request. */
  middleware: MiddlewareHandler;
  /** Sends the spans still buffered (before a shutdown). */
  flush(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Which exporter the environment asks for, or undefined for none (tracing off). */
export function tracesExporter(env: Env): "otlp" | "console" | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const named = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (named === "none") return undefined;
  if (named === "console") return "console";
  if (named === "otlp") return "otlp";
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? "otlp" : undefined;
}

let started: Promise<Tracing> | undefined;

/** Registers the trace SDK once per process (a second server in the same process shares it). */
export function startTracing(env: Env, logger: Logger): Promise<Tracing> | undefined {
  const exporter = tracesExporter(env);
  if (!exporter) return undefined;
  started ??= register(exporter, env, logger);
  return started;
}

async function register(exporter: "otlp" | "console", env: Env, logger: Logger): Promise<Tracing> {
  const [api, sdk, { AsyncLocalStorageContextManager }, core, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
  ]);
  const spanExporter =
    exporter === "otlp"
      ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter()
      : new sdk.ConsoleSpanExporter();
  // service.name "agentsvc" unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES name it.
  const resource = resources
    .resourceFromAttributes({ "service.name": "agentsvc" })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new sdk.TracerProvider({
    resource,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: spanExporter,
        ...(Number.isFinite(delay) && delay >= 0 ? { scheduledDelayMillis: delay } : {}),
      }),
    ],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  // The packages make real spans from now on (they load nothing of OpenTelemetry themselves).
  traceRuns(api);
  traceSessions(api);
  logger.info({ exporter }, `traces exported (${exporter})`);
  const trustTraceparent = env.AGENTSVC_TRUST_TRACEPARENT?.trim().toLowerCase() === "true";
  return { middleware: httpTracing(api, { trustTraceparent }), flush: () => provider.forceFlush() };
}
