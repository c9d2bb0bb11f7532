// OpenTelemetry spans of the gateway session: a gateway's inbound record, a turn, an outbox send.
// The @opentelemetry/api module is handed in by the server once it registered the trace SDK
// (useOpenTelemetry); until then nothing of it is loaded and every span is a no-op. One trace per
// message: the inbound span's W3C `traceparent` is kept in the inbox record's origin, the turn's in
// each reply piece's outbox row, so a turn or a send after a restart continues the same trace.
import type * as Api from "@opentelemetry/api";

type OpenTelemetryApi = typeof Api;
let api: OpenTelemetryApi | undefined;

/** The server calls this after registering the trace SDK: from then on the session makes real spans. */
export function useOpenTelemetry(module: OpenTelemetryApi): void {
  api = module;
}

/** What the session does with a span (a no-op one while tracing is off). */
export interface TraceSpan {
  setAttribute(key: string, value: Api.AttributeValue): unknown;
  addEvent(name: string, attributes?: Api.Attributes): unknown;
  end(): void;
  /** Marks the span failed with `err` (an exception event and an error status). */
  fail(err: unknown): void;
  /** Its W3C `traceparent`, or undefined while tracing is off. */
  readonly traceparent: string | undefined;
}

const NOOP: TraceSpan = {
  setAttribute: () => NOOP,
  addEvent: () => NOOP,
  end: () => {},
  fail: () => {},
  traceparent: undefined,
};

type Kind = "INTERNAL" | "CONSUMER" | "PRODUCER";
/** Where a span hangs: the active span, or a stored traceparent (null/undefined: a new trace when there is none). */
type Parent = { traceparent: string | null | undefined } | "active";

function start(otel: OpenTelemetryApi, name: string, kind: Kind, attributes: Api.Attributes, parent: Parent) {
  const ctx =
    parent === "active"
      ? otel.context.active()
      : parent.traceparent
        ? otel.propagation.extract(otel.ROOT_CONTEXT, { traceparent: parent.traceparent })
        : otel.ROOT_CONTEXT;
  const span = otel.trace
    .getTracer("@agentsvc/session-core")
    .startSpan(name, { kind: otel.SpanKind[kind], attributes }, ctx);
  const carrier: { traceparent?: string } = {};
  otel.propagation.inject(otel.trace.setSpan(otel.ROOT_CONTEXT, span), carrier);
  const traced: TraceSpan = {
    setAttribute: (key, value) => span.setAttribute(key, value),
    addEvent: (event, attrs) => span.addEvent(event, attrs),
    end: () => span.end(),
    fail: (err) => {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({
        code: otel.SpanStatusCode.ERROR,
        message: err instanceof Error ? err.message : String(err),
      });
    },
    traceparent: carrier.traceparent,
  };
  return { span: traced, ctx: otel.trace.setSpan(ctx, span) };
}

/** A span the caller ends (a turn outlives the call that starts it). */
export function startSpan(name: string, attributes: Api.Attributes, parent: Parent): TraceSpan {
  return api ? start(api, name, "INTERNAL", attributes, parent).span : NOOP;
}

/** Runs `fn` inside a span, ended when `fn` settles; a throw marks it failed. */
export async function inSpan<T>(
  name: string,
  options: { kind: Kind; attributes: Api.Attributes; parent: Parent },
  fn: (span: TraceSpan) => Promise<T>,
): Promise<T> {
  const otel = api;
  if (!otel) return fn(NOOP);
  const { span, ctx } = start(otel, name, options.kind, options.attributes, options.parent);
  try {
    return await otel.context.with(ctx, () => fn(span));
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    span.end();
  }
}

/** Runs `fn` with the span of `traceparent` active, so work it starts (model and tool calls) are its children. */
export function withParent<T>(traceparent: string | undefined, fn: () => T): T {
  const otel = api;
  if (!otel || !traceparent) return fn();
  return otel.context.with(otel.propagation.extract(otel.context.active(), { traceparent }), fn);
}

/** Outbox items carrying `traceparent` (unchanged when there is none: tracing off). */
export function traced<T extends object>(
  items: T[],
  traceparent: string | undefined,
): (T & { traceparent?: string })[] {
  return traceparent ? items.map((item) => ({ ...item, traceparent })) : items;
}
