// The trace SDK's in-memory exporter as the session's OpenTelemetry for one test file: the spans
// a test made are read back from it, and it is emptied after each test. The W3C propagator is the
// server's: a stored traceparent (inbox origin, outbox row) is read back as the parent.
import * as api from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, afterEach, beforeAll } from "vitest";
import { useOpenTelemetry } from "../src/index.js";

export function useSpans(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  beforeAll(() => {
    api.trace.setGlobalTracerProvider(provider);
    api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    useOpenTelemetry(api);
  });
  afterAll(async () => {
    await provider.shutdown();
    api.trace.disable();
    api.propagation.disable();
  });
  afterEach(() => exporter.reset());
  return exporter;
}
