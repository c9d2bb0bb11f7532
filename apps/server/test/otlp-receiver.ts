// An OTLP/HTTP trace receiver on 127.0.0.1 for tests: takes what the exporter POSTs to /v1/traces
// in the OTLP JSON encoding (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding:
// trace and span ids as hex strings, attributes as key/value pairs with a typed value) and keeps
// each span flattened.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string };
  service: unknown;
  links: { traceId: string; spanId: string }[];
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function decodeValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

const attrs = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeValue(kv.value)]));

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Request headers of each export (OTEL_EXPORTER_OTLP_HEADERS shows here). */
  readonly headers: Record<string, string | string[] | undefined>[] = [];
  #server!: Server;

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    receiver.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.method !== "POST" || req.url !== "/v1/traces") return void res.writeHead(404).end();
        receiver.headers.push(req.headers);
        receiver.#take(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((ok) => receiver.#server.listen(0, "127.0.0.1", ok));
    return receiver;
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  named(prefix: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.name.startsWith(prefix));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((ok) => this.#server.close(ok));
  }

  #take(body: {
    resourceSpans?: {
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          attributes?: KeyValue[];
          events?: { name: string; attributes?: KeyValue[] }[];
          status?: { code?: number; message?: string };
          links?: { traceId: string; spanId: string }[];
        }[];
      }[];
    }[];
  }): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = attrs(rs.resource?.attributes)["service.name"];
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? [])
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? "",
            name: s.name,
            attributes: attrs(s.attributes),
            events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })),
            status: s.status ?? {},
            service,
            links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          });
    }
  }
}
