// A local OTLP/HTTP trace receiver on 127.0.0.1: what a collector's `otlp` receiver accepts at
// POST /v1/traces. The JavaScript OTLP/HTTP exporter sends the JSON encoding
// (https://opentelemetry.io/docs/specs/otlp/#otlphttp , JSON mapping:
// https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). It keeps every span it got.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  links?: { traceId: string; spanId: string }[];
  /** The resource's service.name. */
  service?: string;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value?: { stringValue?: string } }[] };
    scopeSpans?: { spans?: Omit<ReceivedSpan, "service">[] }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
        // The protobuf encoding is not decoded here: answer as a collector does to a type it does not take.
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value?.stringValue;
        for (const ss of rs.scopeSpans ?? []) {
          for (const span of ss.spans ?? []) spans.push({ ...span, ...(service ? { service } : {}) });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
