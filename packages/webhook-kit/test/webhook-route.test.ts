// webhookRoute against a real session context (session-core's contract rig: a real GatewaySession
// and store), with the gateway's log lines read back.
import type {
  DeliverResult,
  Gateway,
  GatewayContext,
  WebhookRequest,
  WebhookRoute,
} from "@agentsvc/adapter-kit";
import { ContractRig } from "@agentsvc/session-core/testing";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { hubSignature, verifyHubSignature, type WebhookRouteSpec, webhookRoute } from "../src/index.js";

const SECRET = "route-secret";

interface Line {
  level: number;
  msg: string;
  reason?: string;
  err?: { message: string };
}

interface Message {
  id: string;
  thread: string;
  text: string;
}

/** A webhook gateway as an adapter writes one with the kit: its verify, parse and map only. */
class HookGateway implements Gateway {
  readonly kind = "push" as const;
  readonly type = "hook";
  readonly name = "hook";
  readonly capabilities = { threads: true, interactiveActions: false };
  readonly messageLimit = 1000;
  readonly lines: Line[] = [];
  #context: GatewayContext | undefined;
  failRecord = false;
  parsed = 0;
  readonly webhooks: readonly WebhookRoute[];

  constructor(extra: Partial<WebhookRouteSpec<Message>> = {}) {
    this.webhooks = [
      webhookRoute<Message>({
        context: () => this.#context,
        verify: (req) => verifyHubSignature(SECRET, req.headers["x-hub-signature-256"], req.rawBody),
        parse: (req) => {
          this.parsed++;
          const body = JSON.parse(new TextDecoder().decode(req.rawBody)) as Record<string, unknown>;
          if (body.kind === "status") return { ignore: "a delivery status, not a message" };
          if (body.id === undefined) return { invalid: "id: missing", code: "missing_id" };
          if (typeof body.id !== "string" || typeof body.text !== "string")
            return { invalid: "id and text: expected strings" };
          return { id: body.id, thread: String(body.thread ?? "t-1"), text: body.text };
        },
        handle: async (m, _req, ctx) => {
          if (this.failRecord) throw new Error("store is down");
          await ctx.deliver({ dedupKey: m.id, thread: m.thread, text: m.text, author: { id: "u-1" } });
        },
        ...extra,
      }),
    ];
  }

  /** The real session context the gateway was started with. */
  get context(): GatewayContext {
    if (!this.#context) throw new Error("not started");
    return this.#context;
  }

  async start(ctx: GatewayContext): Promise<void> {
    const logger = pino(
      { level: "debug" },
      { write: (line: string) => void this.lines.push(JSON.parse(line) as Line) },
    );
    this.#context = { ...ctx, logger };
  }
  async stop(): Promise<void> {
    this.#context = undefined;
  }
  async send(): Promise<undefined> {
    return undefined;
  }
}

function request(body: string, signature = hubSignature(SECRET, body)): WebhookRequest {
  const url = "http://127.0.0.1/webhooks/hook";
  return {
    method: "POST",
    rawBody: new TextEncoder().encode(body),
    headers: signature ? { "x-hub-signature-256": signature } : {},
    url,
    publicUrl: url,
    query: new URLSearchParams(),
  };
}

let rig: ContractRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

async function started(gateway: HookGateway): Promise<{ route: WebhookRoute; rig: ContractRig }> {
  rig = new ContractRig({ gateway: () => gateway, sent: async () => [] });
  await rig.start();
  return { route: gateway.webhooks[0] as WebhookRoute, rig };
}

const message = JSON.stringify({ id: "m-1", thread: "t-1", text: "hello" });

/** Whether the session already holds `id` (a second deliver of a recorded message is a duplicate). */
async function recorded(gateway: HookGateway, id: string): Promise<boolean> {
  const result: DeliverResult = await gateway.context.deliver({
    dedupKey: id,
    thread: "probe",
    text: "probe",
    author: { id: "probe" },
  });
  return !result.accepted;
}

const WARN = 40;
const ERROR = 50;
const DEBUG = 20;

describe("webhookRoute", () => {
  it("records a verified message before acknowledging it with 200 and an empty body", async () => {
    const gateway = new HookGateway();
    const { route } = await started(gateway);
    const res = await route.handle(request(message));
    expect(res).toMatchObject({ status: 200, body: "" });
    expect(await recorded(gateway, "m-1")).toBe(true);
  });

  it("refuses a wrong or missing signature with 401, an empty body and a warning with the reason, before parsing", async () => {
    const gateway = new HookGateway();
    const { route } = await started(gateway);
    const forged = await route.handle(request(message, hubSignature("other-secret", message)));
    const unsigned = await route.handle(request(message, ""));
    expect(forged).toMatchObject({ status: 401, body: "" });
    expect(unsigned).toMatchObject({ status: 401, body: "" });
    expect(gateway.parsed).toBe(0);
    const warnings = gateway.lines.filter((l) => l.level === WARN);
    expect(warnings.map((l) => [l.msg, l.reason])).toEqual([
      ["webhook request refused: not verified", "mismatch"],
      ["webhook request refused: not verified", "missing_header"],
    ]);
    expect(await recorded(gateway, "m-1")).toBe(false);
  });

  it("answers 400 with a warning when a verified body does not parse or is invalid, and records nothing", async () => {
    const gateway = new HookGateway();
    const { route } = await started(gateway);
    const notJson = await route.handle(request("{not json"));
    const invalid = await route.handle(request(JSON.stringify({ id: "m-2", text: 5 })));
    expect(notJson.status).toBe(400);
    expect(invalid.status).toBe(400);
    const warnings = gateway.lines.filter((l) => l.level === WARN);
    expect(warnings.map((l) => l.msg)).toEqual([
      "webhook payload refused: not understood",
      "webhook payload refused: not understood",
    ]);
    expect(warnings[0]?.reason).toMatch(/JSON/);
    expect(warnings[1]?.reason).toBe("id and text: expected strings");
    expect(await recorded(gateway, "m-2")).toBe(false);
  });

  it("acknowledges an ignored payload with 200, logs the reason at debug and records nothing", async () => {
    const gateway = new HookGateway();
    const { route } = await started(gateway);
    const res = await route.handle(request(JSON.stringify({ kind: "status", id: "s-1", text: "" })));
    expect(res.status).toBe(200);
    const line = gateway.lines.find((l) => l.msg === "webhook payload ignored");
    expect(line).toMatchObject({ level: DEBUG, reason: "a delivery status, not a message" });
    expect(await recorded(gateway, "s-1")).toBe(false);
  });

  it("answers 500 and logs an error when recording fails, so the platform redelivers", async () => {
    const gateway = new HookGateway();
    const { route } = await started(gateway);
    gateway.failRecord = true;
    const res = await route.handle(request(message));
    expect(res.status).toBe(500);
    const line = gateway.lines.find((l) => l.level === ERROR);
    expect(line?.msg).toBe("recording a webhook delivery failed; answered 500 so the platform will retry");
    expect(line?.err?.message).toBe("store is down");
    // The redelivery is then recorded and acknowledged.
    gateway.failRecord = false;
    expect((await route.handle(request(message))).status).toBe(200);
    expect(await recorded(gateway, "m-1")).toBe(true);
  });

  it("answers 500 when verification itself fails (a key fetch), not 401", async () => {
    const gateway = new HookGateway({
      verify: () => {
        throw new Error("keys unreachable");
      },
    });
    const { route } = await started(gateway);
    expect((await route.handle(request(message))).status).toBe(500);
    expect(gateway.lines.find((l) => l.level === ERROR)?.err?.message).toBe("keys unreachable");
  });

  it("answers 503 before start and after stop", async () => {
    const gateway = new HookGateway();
    const route = gateway.webhooks[0] as WebhookRoute;
    expect((await route.handle(request(message))).status).toBe(503);
    await started(gateway);
    await gateway.stop();
    expect((await route.handle(request(message))).status).toBe(503);
  });

  it("answers with what handle returns, else the configured ack, and renders refusals with refuse", async () => {
    const twiml = { status: 200, headers: { "content-type": "text/xml" }, body: "<Response/>" };
    const gateway = new HookGateway({
      ack: { status: 202, body: "" },
      refuse: (r) => ({ status: r.status, body: JSON.stringify({ code: r.code, reason: r.reason }) }),
      handle: async (m, _req, ctx) => {
        await ctx.deliver({ dedupKey: m.id, thread: m.thread, text: m.text, author: { id: "u-1" } });
        return m.text === "twiml" ? twiml : undefined;
      },
    });
    const { route } = await started(gateway);
    expect(await route.handle(request(message))).toEqual({ status: 202, body: "" });
    const reply = JSON.stringify({ id: "m-3", text: "twiml" });
    expect(await route.handle(request(reply))).toEqual(twiml);
    const refused = await route.handle(request(message, hubSignature("x", message)));
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body ?? "")).toEqual({ code: "unauthorized", reason: "mismatch" });
    // A parse refusal carries the code parse gave, else `invalid`.
    const noId = await route.handle(request(JSON.stringify({ text: "x" })));
    expect(noId.status).toBe(400);
    expect(JSON.parse(noId.body ?? "")).toEqual({ code: "missing_id", reason: "id: missing" });
    const badText = await route.handle(request(JSON.stringify({ id: "m-9", text: 1 })));
    expect(JSON.parse(badText.body ?? "")).toMatchObject({ code: "invalid" });
  });
});
