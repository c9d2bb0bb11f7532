// OpenTelemetry traces of a server child process, exported over OTLP/HTTP to a receiver on
// 127.0.0.1: one Telegram message is one trace, inbound -> turn -> agent -> model -> tool -> send.
// The first send is refused (429, retry_after 3) and the server is killed with SIGKILL before the
// retry; after the restart the reply's send is still in the message's trace (the outbox row keeps
// the turn's traceparent).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { eventually, freePort, TelegramFake } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { HooksClient, ServerProcess } from "./crash-driver.js";
import { OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const fixture = resolve(import.meta.dirname, "fixtures/otel");
const CHAT = 5151;

// The app root holds the store, and node_modules with the server's packages plus the Telegram
// adapter (its dist: `pnpm build`), as an app that installed them.
const root = mkdtempSync(join(tmpdir(), "agentsvc-otel-"));
const serverModules = resolve(import.meta.dirname, "../node_modules/@agentsvc");
const modules = join(root, "node_modules", "@agentsvc");
mkdirSync(modules, { recursive: true });
for (const name of readdirSync(serverModules))
  symlinkSync(join(serverModules, name), join(modules, name), "dir");
// Linked only when the server's own devDependencies did not bring it already.
if (!existsSync(join(modules, "gateway-telegram")))
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-telegram"),
    join(modules, "gateway-telegram"),
    "dir",
  );
afterAll(() => rmSync(root, { recursive: true, force: true }));

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(
    found.map((s) => s.name),
    `exactly one span "${name}"`,
  ).toEqual([name]);
  return found[0] as ReceivedSpan;
}

describe("traces over OTLP/HTTP (server child process, SIGKILL between the turn's commit and the send)", () => {
  it("one message is one trace from inbound to the reply's delivery, continued by the restarted process", async () => {
    const receiver = await OtlpReceiver.start();
    const telegram = await TelegramFake.start();
    const server = new ServerProcess(
      root,
      await freePort(),
      {
        TELEGRAM_TOKEN: telegram.token,
        OTEL_TELEGRAM_API: telegram.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=otel-test",
        OTEL_SERVICE_NAME: "agentsvc-otel-test",
        OTEL_BSP_SCHEDULE_DELAY: "50",
        HOOKS_SECRET: "hooks-secret",
      },
      fixture,
    );
    try {
      // Telegram answers the reply's first send with 429 (retry after 3 s), as its Bot API documents.
      telegram.failNext("sendMessage", { status: 429, retryAfter: 3 });
      await server.start();
      telegram.chat.userSends({ chatId: CHAT, text: "weather in Lisbon?", from: { id: CHAT } });
      await eventually(() => receiver.named("send telegram").length > 0, "the refused send's span", 15_000);
      // Killed before the retry: the reply is committed, not delivered.
      server.kill();
      expect(await server.waitForExit(5_000)).toBe("SIGKILL");
      expect(telegram.chat.botMessages.filter((m) => m.chatId === CHAT)).toEqual([]);

      await server.start();
      await eventually(
        () => telegram.chat.botMessages.some((m) => m.chatId === CHAT),
        "the reply delivered after the restart",
        15_000,
      );
      await eventually(() => receiver.named("send telegram").length === 2, "the second send's span", 10_000);
      const telegramSpans = [...receiver.spans];

      // A webhook message: the HTTP request's server span is the root of its trace.
      const hooks = new HooksClient(`http://127.0.0.1:${server.port}`, "hooks-secret");
      expect(await hooks.send({ id: "h1", thread: "t1", text: "weather?" })).toBe(true);
      await eventually(() => receiver.named("turn hooks").length > 0, "the webhook message's turn", 15_000);
      const hookInbound = one(receiver.spans, "gateway.inbound hooks");
      const request = one(receiver.spans, "POST /gateways/:gatewayName/events");
      expect(request.parentSpanId).toBe("");
      expect(request.attributes).toMatchObject({
        "http.route": "/gateways/:gatewayName/events",
        "http.response.status_code": 202,
      });
      expect(hookInbound.traceId).toBe(request.traceId);
      expect(hookInbound.parentSpanId).toBe(request.spanId);
      expect(one(receiver.spans, "turn hooks").parentSpanId).toBe(hookInbound.spanId);
      expect(await server.stop()).toBe(0);

      const inbound = one(telegramSpans, "gateway.inbound telegram");
      const trace = telegramSpans.filter((s) => s.traceId === inbound.traceId);
      // Every span of this message is in its trace, and the trace holds nothing else.
      expect(telegramSpans.filter((s) => s.traceId !== inbound.traceId)).toEqual([]);
      const turn = one(trace, "turn telegram");
      const agent = one(trace, "invoke_agent root");
      const tool = one(trace, "execute_tool lookup");
      const models = trace.filter((s) => s.name.startsWith("chat "));
      const sends = trace.filter((s) => s.name === "send telegram");
      expect(inbound.parentSpanId).toBe("");
      expect(inbound.attributes).toMatchObject({
        "agentsvc.gateway": "telegram",
        "agentsvc.inbound.outcome": "accepted",
      });
      expect(turn.parentSpanId).toBe(inbound.spanId);
      expect(turn.attributes).toMatchObject({
        "agentsvc.gateway": "telegram",
        "agentsvc.thread": String(CHAT),
        "agentsvc.policy.outcome": "started",
        "agentsvc.turn.outcome": "completed",
      });
      expect(agent.parentSpanId).toBe(turn.spanId);
      expect(agent.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "root",
      });
      // Two model calls (the tool call, then the answer), as the GenAI conventions name them.
      expect(models).toHaveLength(2);
      for (const m of models) {
        expect(m.parentSpanId).toBe(agent.spanId);
        expect(m.attributes).toMatchObject({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "demo",
        });
        expect(m.name).toBe(`chat ${String(m.attributes["gen_ai.request.model"])}`);
        // Content is opt-in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT was not set).
        expect(m.attributes["gen_ai.input.messages"]).toBeUndefined();
      }
      expect(models.map((m) => m.attributes["gen_ai.response.finish_reasons"]).sort()).toEqual([
        ["stop"],
        ["tool-calls"],
      ]);
      expect(tool.parentSpanId).toBe(agent.spanId);
      expect(tool.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
      });
      // The refused attempt (before the kill) and the delivered one (after the restart), both children of the turn.
      const [refused, delivered] = [...sends].sort(
        (a, b) =>
          Number(a.attributes["agentsvc.outbox.attempt"]) - Number(b.attributes["agentsvc.outbox.attempt"]),
      );
      expect(sends.map((s) => s.parentSpanId)).toEqual([turn.spanId, turn.spanId]);
      expect(refused?.attributes).toMatchObject({
        "agentsvc.outbox.attempt": 1,
        "agentsvc.outbox.outcome": "retry",
        "http.response.status_code": 429,
        "agentsvc.send.retry_after_ms": 3000,
      });
      expect(delivered?.attributes).toMatchObject({
        "agentsvc.outbox.attempt": 2,
        "agentsvc.outbox.outcome": "sent",
      });
      // The standard environment reaches the SDK: the service name and the exporter's headers.
      expect(new Set(receiver.spans.map((s) => s.service))).toEqual(new Set(["agentsvc-otel-test"]));
      expect(receiver.headers.every((h) => h["x-tenant"] === "otel-test")).toBe(true);
    } finally {
      server.kill();
      await telegram.close();
      await receiver.close();
    }
  }, 90_000);
});
