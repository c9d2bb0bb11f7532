// An `http` channel entry's `callbackUrl` and the agent's `gatewaySession` (`policy: reject` and
// `queue` with `maxQueueDepth`, `busyReply`), through the built bin: every reply is POSTed to the
// callback, signed with the entry's secret; a message to a thread whose turn is still running gets
// the busy reply at once (reject), or waits behind it until the queue is full (queue).
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { eventually } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { linkPackages, tempDir, writeFiles } from "./helpers.js";

const SECRET = "http-channel-secret";

// A tool that waits until the test opens the gate, so the thread's turn is still running.
const agent = (gatewaySession: string) => `import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const gates = process.env.KNOB_GATES;
export default {
  kind: "agent",
  name: "bot",
  model: { provider: "demo" },
  gatewaySession: ${gatewaySession},
  tools: [{
    kind: "tool",
    name: "gate",
    description: "Waits at the gate.",
    input: { type: "json-schema", schema: { type: "object", properties: { note: { type: "string" } } } },
    async execute() {
      writeFileSync(join(gates, "in"), "");
      for (let waited = 0; !existsSync(join(gates, "open")) && waited < 60000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      return "gate passed";
    },
  }],
};
`;

interface Callback {
  body: { gateway: string; kind: string; thread: string; text: string; idempotencyKey: string };
  signed: boolean;
}

/** The callbacks' receiver: checks each one's v1 signature (HMAC over the timestamp and the body). */
async function receiver(): Promise<{ url: string; got: Callback[]; server: Server }> {
  const got: Callback[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += String(c)));
    req.on("end", () => {
      const ts = String(req.headers["x-agentsvc-timestamp"] ?? "");
      const given = /^v1=([0-9a-f]{64})$/.exec(String(req.headers["x-agentsvc-signature"] ?? ""))?.[1] ?? "";
      const want = createHmac("sha256", SECRET).update(`${ts}.${raw}`).digest("hex");
      const signed = given.length === 64 && timingSafeEqual(Buffer.from(given), Buffer.from(want));
      got.push({ body: JSON.parse(raw) as Callback["body"], signed });
      res.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/agentsvc-callbacks`, got, server };
}

function send(url: string, id: string, thread: string, text: string): Promise<Response> {
  const raw = JSON.stringify({ id, thread, text });
  const ts = String(Math.floor(Date.now() / 1000));
  const target = "/gateways/hooks/events";
  const digest = createHmac("sha256", SECRET).update(`${ts}.POST ${target}\n${raw}`).digest("hex");
  return fetch(`${url}${target}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-agentsvc-timestamp": ts,
      "x-agentsvc-signature": `v2=${digest}`,
    },
    body: raw,
    signal: AbortSignal.timeout(10_000),
  });
}

describe("agentsvc start: an http channel's callbackUrl and the agent's gatewaySession reject policy", () => {
  let served: Served;
  let callbacks: Awaited<ReturnType<typeof receiver>>;
  let gates: string;

  beforeAll(async () => {
    callbacks = await receiver();
    gates = tempDir("agentsvc-http-gates-");
    const dir = writeFiles(tempDir("agentsvc-http-channel-"), {
      "package.json": JSON.stringify({ name: "http-channel", private: true, type: "module" }),
      "agents/bot.mjs": agent('{ policy: "reject", busyReply: "One message at a time, please." }'),
      "gateways/hooks.yaml": `type: http\nsecretEnvVar: HOOKS_SECRET\ncallbackUrl: ${callbacks.url}\n`,
    });
    linkPackages(dir, { "@agentsvc/gateway-http": "packages/gateway-http" });
    served = await serveBin(["start", dir, "--port", "0"], { HOOKS_SECRET: SECRET, KNOB_GATES: gates });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await new Promise((r) => callbacks?.server.close(r));
  });

  const to = (thread: string) => callbacks.got.filter((c) => c.body.thread === thread);

  it("a message while the thread's turn runs gets the busyReply at once, and each reply is POSTed to callbackUrl, signed", async () => {
    expect((await send(served.url, "m1", "t1", "use the gate")).status).toBe(202);
    await eventually(() => existsSync(join(gates, "in")), "the turn at the gate", 20_000);
    expect((await send(served.url, "m2", "t1", "are you there?")).status).toBe(202);
    await eventually(() => to("t1").length >= 1, "the busy reply's callback", 20_000);
    expect(to("t1")[0]?.body).toMatchObject({
      gateway: "hooks",
      kind: "reply",
      text: "One message at a time, please.",
    });
    writeFileSync(join(gates, "open"), "");
    await eventually(() => to("t1").length >= 2, "the turn's reply", 20_000);
    expect(to("t1")[1]?.body).toMatchObject({ kind: "reply", text: "The tool gate returned: gate passed." });
    expect(callbacks.got.every((c) => c.signed)).toBe(true);
    expect(new Set(callbacks.got.map((c) => c.body.idempotencyKey)).size).toBe(callbacks.got.length);
    // Rejected, not queued: the busy message never ran a turn of its own.
    expect(callbacks.got.map((c) => c.body.text).join("\n")).not.toContain("are you there?");
  }, 60_000);
});

describe("agentsvc start: the agent's gatewaySession queue policy with maxQueueDepth", () => {
  let served: Served;
  let callbacks: Awaited<ReturnType<typeof receiver>>;
  let gates: string;

  beforeAll(async () => {
    callbacks = await receiver();
    gates = tempDir("agentsvc-queue-gates-");
    const dir = writeFiles(tempDir("agentsvc-queue-depth-"), {
      "package.json": JSON.stringify({ name: "queue-depth", private: true, type: "module" }),
      "agents/bot.mjs": agent('{ policy: "queue", maxQueueDepth: 1, busyReply: "The queue is full." }'),
      "gateways/hooks.yaml": `type: http\nsecretEnvVar: HOOKS_SECRET\ncallbackUrl: ${callbacks.url}\n`,
    });
    linkPackages(dir, { "@agentsvc/gateway-http": "packages/gateway-http" });
    served = await serveBin(["start", dir, "--port", "0"], { HOOKS_SECRET: SECRET, KNOB_GATES: gates });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await new Promise((r) => callbacks?.server.close(r));
  });

  const texts = () => callbacks.got.filter((c) => c.body.thread === "q1").map((c) => c.body.text);

  it("queues one message behind the running turn, answers the next with the busy reply, then runs the queued one", async () => {
    expect((await send(served.url, "q-1", "q1", "use the gate")).status).toBe(202);
    await eventually(() => existsSync(join(gates, "in")), "the turn at the gate", 20_000);
    expect((await send(served.url, "q-2", "q1", "queued behind it")).status).toBe(202);
    expect((await send(served.url, "q-3", "q1", "one too many")).status).toBe(202);
    await eventually(() => texts().length >= 1, "the busy reply", 20_000);
    expect(texts()).toEqual(["The queue is full."]);
    writeFileSync(join(gates, "open"), "");
    await eventually(() => texts().length >= 3, "the two turns' replies", 20_000);
    expect(texts().slice(1)).toEqual([
      "The tool gate returned: gate passed.",
      expect.stringContaining('You said: "queued behind it"'),
    ]);
    expect(texts().join("\n")).not.toContain("one too many");
  }, 60_000);
});
