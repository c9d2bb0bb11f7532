// One server span per HTTP request (OpenTelemetry HTTP conventions), mounted only while tracing is
// on. Work the request starts (a webhook's inbound record) is its child; a `traceparent` header
// from the caller makes the request part of the caller's trace.
import type * as Api from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import { routeOf } from "./route-pattern.js";

/** `api` is handed in by tracing.ts once the SDK is registered (this file imports none of it itself). */
export function httpTracing(api: typeof Api): MiddlewareHandler {
  const { context, propagation, SpanKind, SpanStatusCode, trace } = api;
  const tracer = trace.getTracer("@agentsvc/server");
  return async (c, next) => {
    const method = c.req.method;
    const parent = propagation.extract(context.active(), c.req.header());
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "url.path": c.req.path } },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = routeOf(c);
      span.updateName(`${method} ${route}`);
      span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
