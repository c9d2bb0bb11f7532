// OpenTelemetry spans of a run, named and attributed as the GenAI semantic conventions say
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/): `invoke_agent <agent>` for a run segment,
// `chat <model>` for a model call, `execute_tool <tool>` for a tool call. Only @opentelemetry/api:
// a no-op unless the server registered an SDK. Prompt and reply text are recorded only when
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

const tracer = () => trace.getTracer("@agentsvc/agent-core");

/** A span, child of the active one, that the caller ends; `run` executes with it active. */
export function startSpan(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
): { span: Span; run<T>(fn: () => T): T } {
  const span = tracer().startSpan(name, { kind, attributes });
  const ctx = trace.setSpan(context.active(), span);
  return { span, run: (fn) => context.with(ctx, fn) };
}

export function modelCallSpan(provider: string, model: string) {
  return startSpan(`chat ${model}`, SpanKind.CLIENT, {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": provider,
    "gen_ai.request.model": model,
  });
}

export function toolCallSpan(name: string, callId: string) {
  return startSpan(`execute_tool ${name}`, SpanKind.INTERNAL, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": name,
    "gen_ai.tool.call.id": callId,
    "gen_ai.tool.type": "function",
  });
}

export function agentSpan(agent: string, threadId: string, gateway: string | undefined) {
  return startSpan(`invoke_agent ${agent}`, SpanKind.INTERNAL, {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": agent,
    "gen_ai.conversation.id": threadId,
    ...(gateway ? { "agentsvc.gateway": gateway } : {}),
  });
}

/** Opt-in (the GenAI conventions' switch): message content may hold personal data. */
export function captureContent(): boolean {
  return process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true";
}

export function spanFailed(span: Span, type: string, message: string): void {
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
