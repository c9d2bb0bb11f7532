// One server span per HTTP request (OpenTelemetry HTTP conventions), mounted only while tracing is
// on. Work the request starts (a webhook's inbound record) is its child. The service is a public
// endpoint: this span runs before any route knows who the caller is, so a caller's `traceparent`
// is only a link (they would otherwise choose our trace ids and the sampled flag); behind a proxy
// or gateway that sets it, `AGENTSVC_TRUST_TRACEPARENT=true` makes it the parent.
import type * as Api from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import { routeOf } from "./route-pattern.js";

/** `api` is handed in by tracing.ts once the SDK is registered (this file imports none of it itself). */
export function httpTracing(api: typeof Api, options: { trustTraceparent: boolean }): MiddlewareHandler {
  const { context, propagation, SpanKind, SpanStatusCode, trace } = api;
  const tracer = trace.getTracer("@agentsvc/server");
  return async (c, next) => {
    const method = c.req.method;
    const given = propagation.extract(context.active(), c.req.header());
    const caller = trace.getSpanContext(given);
    const parent = options.trustTraceparent ? given : context.active();
    const links =
      !options.trustTraceparent && caller && trace.isSpanContextValid(caller) ? [{ context: caller }] : [];
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": method, "url.path": c.req.path },
        links,
      },
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
