// #38 item 7: a caller's `traceparent` must not choose our trace ids or the sampled flag: the
// request span runs before any route knows who is calling, so the header is kept as a link and the
// request starts its own trace, unless the operator trusts it (AGENTSVC_TRUST_TRACEPARENT=true
// behind a proxy that sets it). Server child process, OTLP/HTTP to a receiver on 127.0.0.1.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eventually, freePort, TelegramFake } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ServerProcess } from "./crash-driver.js";
import { OtlpReceiver } from "./otlp-receiver.js";

const fixture = resolve(import.meta.dirname, "fixtures/otel");
const root = mkdtempSync(join(tmpdir(), "agentsvc-traceparent-"));
const serverModules = resolve(import.meta.dirname, "../node_modules/@agentsvc");
const modules = join(root, "node_modules", "@agentsvc");
mkdirSync(modules, { recursive: true });
for (const name of readdirSync(serverModules))
  symlinkSync(join(serverModules, name), join(modules, name), "dir");
if (!existsSync(join(modules, "gateway-telegram")))
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-telegram"),
    join(modules, "gateway-telegram"),
    "dir",
  );
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

async function requestSpan(trust: boolean) {
  const receiver = await OtlpReceiver.start();
  const telegram = await TelegramFake.start();
  const server = new ServerProcess(
    root,
    await freePort(),
    {
      TELEGRAM_TOKEN: telegram.token,
      OTEL_TELEGRAM_API: telegram.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      HOOKS_SECRET: "hooks-secret",
      AGENTSVC_TRUST_TRACEPARENT: trust ? "true" : "",
    },
    fixture,
  );
  try {
    await server.start();
    const res = await fetch(`http://127.0.0.1:${server.port}/health`, {
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    });
    expect(res.status).toBe(200);
    await eventually(() => receiver.named("GET /health").length > 0, "the request's span", 15_000);
    return receiver.named("GET /health")[0];
  } finally {
    await server.stop();
    await telegram.close();
    await receiver.close();
  }
}

describe("a caller's traceparent", () => {
  it("is a link, not the parent: an unauthenticated caller chooses neither our trace id nor its parent", async () => {
    const span = await requestSpan(false);
    expect(span?.traceId).not.toBe(CALLER_TRACE);
    expect(span?.parentSpanId).toBe("");
    expect(span?.links).toEqual([{ traceId: CALLER_TRACE, spanId: CALLER_SPAN }]);
  });

  it("is the parent when the operator trusts it (AGENTSVC_TRUST_TRACEPARENT=true)", async () => {
    const span = await requestSpan(true);
    expect(span?.traceId).toBe(CALLER_TRACE);
    expect(span?.parentSpanId).toBe(CALLER_SPAN);
    expect(span?.links).toEqual([]);
  });
});
