// OpenTelemetry spans of a run, named and attributed as the GenAI semantic conventions say
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/): `invoke_agent <agent>` for a run segment,
// `chat <model>` for a model call, `execute_tool <tool>` for a tool call. The @opentelemetry/api
// module is handed in by the server once it registered the trace SDK (useOpenTelemetry); until
// then nothing of it is loaded and every span here is a no-op, so a service without tracing pays
// nothing at start-up. Prompt and reply text are recorded only when
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
import type * as Api from "@opentelemetry/api";

type OpenTelemetryApi = typeof Api;
let api: OpenTelemetryApi | undefined;

/** The server calls this after registering the trace SDK: from then on runs make real spans. */
export function useOpenTelemetry(module: OpenTelemetryApi): void {
  api = module;
}

/** What the run loop does with a span (a no-op one while tracing is off). */
export interface TraceSpan {
  setAttribute(key: string, value: Api.AttributeValue): unknown;
  addEvent(name: string, attributes?: Api.Attributes): unknown;
  end(): void;
  /** Marks the span failed. */
  fail(type: string, message: string): void;
}

const NOOP: TraceSpan = { setAttribute: () => NOOP, addEvent: () => NOOP, end: () => {}, fail: () => {} };

/** A `traceparent` header value (https://www.w3.org/TR/trace-context/#traceparent-header), or undefined. */
function parseTraceparent(value: string): Api.SpanContext | undefined {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value);
  if (!m) return undefined;
  return {
    traceId: m[1] as string,
    spanId: m[2] as string,
    traceFlags: Number.parseInt(m[3] as string, 16),
    isRemote: true,
  };
}

/**
 * A span the caller ends; `run` executes with it active. Its parent is the active span, or, with
 * `continues`, the span of that traceparent: then the active span (what started this part, e.g. a
 * decision's request) is linked instead.
 */
function startSpan(
  name: string,
  kind: "CLIENT" | "INTERNAL",
  attributes: Api.Attributes,
  continues?: string,
): { span: TraceSpan; run<T>(fn: () => T): T; traceparent?: string } {
  const otel = api;
  if (!otel) return { span: NOOP, run: (fn) => fn() };
  const active = otel.context.active();
  const earlier = continues ? parseTraceparent(continues) : undefined;
  const parent = earlier ? otel.trace.setSpanContext(otel.ROOT_CONTEXT, earlier) : active;
  const current = otel.trace.getSpanContext(active);
  const links = earlier && current && otel.trace.isSpanContextValid(current) ? [{ context: current }] : [];
  const span = otel.trace
    .getTracer("@agentsvc/agent-core")
    .startSpan(name, { kind: otel.SpanKind[kind], attributes, links }, parent);
  const ctx = otel.trace.setSpan(parent, span);
  const traced: TraceSpan = {
    setAttribute: (key, value) => span.setAttribute(key, value),
    addEvent: (event, attrs) => span.addEvent(event, attrs),
    end: () => span.end(),
    fail: (type, message) => {
      span.setAttribute("error.type", type);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message });
    },
  };
  const own = span.spanContext();
  const flags = own.traceFlags.toString(16).padStart(2, "0");
  return {
    span: traced,
    run: (fn) => otel.context.with(ctx, fn),
    traceparent: `00-${own.traceId}-${own.spanId}-${flags}`,
  };
}

export function modelCallSpan(provider: string, model: string) {
  return startSpan(`chat ${model}`, "CLIENT", {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": provider,
    "gen_ai.request.model": model,
  });
}

export function toolCallSpan(name: string, callId: string) {
  return startSpan(`execute_tool ${name}`, "INTERNAL", {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": name,
    "gen_ai.tool.call.id": callId,
    "gen_ai.tool.type": "function",
  });
}

/**
 * `invoke_agent`, one per run segment. A run's first segment is a child of the active span (the
 * caller's: a gateway turn, an HTTP request); a later one (continued after a decision or a restart)
 * passes the first's `traceparent` and is its child, linked to the span active at the decision, so
 * a run with approvals is one trace.
 */
export function agentSpan(agent: string, threadId: string, gateway: string | undefined, continues?: string) {
  return startSpan(
    `invoke_agent ${agent}`,
    "INTERNAL",
    {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agent,
      "gen_ai.conversation.id": threadId,
      ...(gateway ? { "agentsvc.gateway": gateway } : {}),
    },
    continues,
  );
}

/** Opt-in (the GenAI conventions' switch): message content may hold personal data. */
export function captureContent(): boolean {
  return (
    api !== undefined &&
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true"
  );
}
