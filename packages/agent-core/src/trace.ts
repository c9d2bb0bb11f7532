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

/** A span, child of the active one, that the caller ends; `run` executes with it active. */
function startSpan(
  name: string,
  kind: "CLIENT" | "INTERNAL",
  attributes: Api.Attributes,
): { span: TraceSpan; run<T>(fn: () => T): T } {
  const otel = api;
  if (!otel) return { span: NOOP, run: (fn) => fn() };
  const span = otel.trace
    .getTracer("@agentsvc/agent-core")
    .startSpan(name, { kind: otel.SpanKind[kind], attributes });
  const ctx = otel.trace.setSpan(otel.context.active(), span);
  const traced: TraceSpan = {
    setAttribute: (key, value) => span.setAttribute(key, value),
    addEvent: (event, attrs) => span.addEvent(event, attrs),
    end: () => span.end(),
    fail: (type, message) => {
      span.setAttribute("error.type", type);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message });
    },
  };
  return { span: traced, run: (fn) => otel.context.with(ctx, fn) };
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

export function agentSpan(agent: string, threadId: string, gateway: string | undefined) {
  return startSpan(`invoke_agent ${agent}`, "INTERNAL", {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": agent,
    "gen_ai.conversation.id": threadId,
    ...(gateway ? { "agentsvc.gateway": gateway } : {}),
  });
}

/** Opt-in (the GenAI conventions' switch): message content may hold personal data. */
export function captureContent(): boolean {
  return (
    api !== undefined &&
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true"
  );
}
