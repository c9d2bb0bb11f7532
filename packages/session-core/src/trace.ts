// OpenTelemetry spans of the gateway session: a gateway's inbound record, a turn, an outbox send.
// Only @opentelemetry/api: every call is a no-op unless the server registered an SDK. One trace per
// message: the inbound span's W3C `traceparent` is kept in the inbox record's origin, the turn's in
// each reply piece's outbox row, so a turn or a send after a restart continues the same trace.
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

const tracer = () => trace.getTracer("@agentsvc/session-core");

/** The span's W3C `traceparent`, or undefined when no propagator is registered (tracing off). */
export function traceparentOf(span: Span): string | undefined {
  const carrier: { traceparent?: string } = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** The context a stored `traceparent` continues (the root context when there is none). */
export function contextOf(traceparent: string | null | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/** Runs `fn` inside a span (a child of the active one), ended when `fn` settles; a throw marks it failed. */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** A span the caller ends (a turn outlives the call that starts it). */
export function startSpan(name: string, attributes: Attributes, parent: Context): Span {
  return tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
}

/** Runs `fn` with `span` as the active span, so work it starts (model and tool calls) are its children. */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

export function failed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Outbox items carrying `traceparent` (unchanged when there is none: tracing off). */
export function traced<T extends object>(
  items: T[],
  traceparent: string | undefined,
): (T & { traceparent?: string })[] {
  return traceparent ? items.map((item) => ({ ...item, traceparent })) : items;
}

export { SpanKind };
