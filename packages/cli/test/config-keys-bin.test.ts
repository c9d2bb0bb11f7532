// Config keys a user turns on, through the built bin (`agentsvc start`), where no other bin test
// used them: `allowedHosts` and the host of `publicBaseUrl` (the DNS-rebinding guard), an agent
// route's and an MCP exposure's `apiKeyEnvVar`, `metrics.port` with `metrics.apiKeyEnvVar` (a
// separate listener), a push entry's sender access (`dmPolicy: allowlist`, `allowFrom`,
// `refusalReply`, `rateLimit`, `groupPolicy: allowlist`, `groupAllowFrom`, `pairingCodeTtlSeconds`,
// `gatewayRateLimit`, `groupPolicy: disabled`), the config's `port`
// (and PORT over it), approvals (the agent's `approvals.channel`, an entry's `approvalDestination`
// and `approvers`), a push entry's media block (`types`, `transcribe`, `transcriptionModel`,
// `showTranscript: false`, `unsupported: ignore`), and channel entries `type: cli` (approvals on
// the service's stdin/stdout) and `type: mock`.
import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { eventually, FakeTranscriptions, freePort, OPENAI_TEST_KEY, TelegramFake } from "@agentsvc/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { outputUntil, type Served, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

const AGENT_KEY = "agent-key-5150";
const METRICS_KEY = "metrics-key-2112";

/** A request with the Host header a browser on another name would send (fetch does not let one set it). */
function withHost(
  url: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const target = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: init.method ?? "GET",
        headers: { host, ...init.headers },
        timeout: 15_000,
      },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += String(c)));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

describe("agentsvc start: allowedHosts, publicBaseUrl, an agent route's apiKeyEnvVar, metrics on their own port", () => {
  let served: Served;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    const dir = writeFiles(tempDir("agentsvc-keys-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\napiKeyEnvVar: AGENT_KEY\n",
      "agentsvc.config.yaml": [
        "allowedHosts: [chat.example.com]",
        "publicBaseUrl: https://agent.example.org",
        "metrics:",
        "  path: /metrics",
        `  port: ${metricsPort}`,
        "  apiKeyEnvVar: METRICS_KEY",
        "",
      ].join("\n"),
    });
    served = await serveBin(["start", dir, "--port", "0"], { AGENT_KEY, METRICS_KEY });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
  });

  const invoke = (host: string, headers: Record<string, string> = {}) =>
    withHost(`${served.url}/agent/invoke`, host, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ input: "which host" }),
    });

  it("answers for a name in allowedHosts and for publicBaseUrl's host; refuses any other Host with 403 and logs it", async () => {
    const key = { "x-api-key": AGENT_KEY };
    const listed = await invoke("chat.example.com", key);
    expect(listed.status, listed.body).toBe(200);
    expect(listed.body).toContain("which host");
    expect((await invoke("agent.example.org", key)).status).toBe(200);
    const other = await invoke("evil.example.net", key);
    expect(other.status).toBe(403);
    expect(other.body).not.toContain("which host");
    await outputUntil(served, (o) =>
      /"host":"evil\.example\.net".*request for a host not in allowedHosts refused \(403\)/.test(o),
    );
  });

  it("an agent route with apiKeyEnvVar refuses a request without the key or with another, and answers the key", async () => {
    expect((await invoke("127.0.0.1")).status).toBe(401);
    expect((await invoke("127.0.0.1", { "x-api-key": "not-the-key" })).status).toBe(401);
    const ok = await invoke("127.0.0.1", { "x-api-key": AGENT_KEY });
    expect(ok.status).toBe(200);
  });

  it("metrics.port serves the series on its own 127.0.0.1 listener behind metrics.apiKeyEnvVar, and not on the service's port", async () => {
    const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
    await outputUntil(served, (o) => o.includes(`metrics at ${metrics}`));
    expect((await fetch(metrics)).status).toBe(401);
    expect((await fetch(metrics, { headers: { "x-api-key": "wrong" } })).status).toBe(401);
    const res = await fetch(metrics, { headers: { authorization: `Bearer ${METRICS_KEY}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(
      /^agentsvc_http_requests_total\{route="\/agent\/invoke",method="POST",status="200"\} \d+$/m,
    );
    expect((await fetch(`${served.url}/metrics`, { headers: { "x-api-key": METRICS_KEY } })).status).toBe(
      404,
    );
  });
});

describe("agentsvc start: a Telegram entry's sender access (allowlist, refusalReply, rateLimit, groupPolicy)", () => {
  let fake: TelegramFake;
  let served: Served;

  beforeAll(async () => {
    fake = await TelegramFake.start();
    const dir = writeFiles(tempDir("agentsvc-access-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/telegram.yaml": [
        "type: telegram",
        "botTokenEnvVar: TELEGRAM_BOT_TOKEN",
        `apiBaseUrl: ${fake.url}`,
        "dmPolicy: allowlist",
        "allowFrom: [7070]",
        'refusalReply: "Only friends of the owner, sorry."',
        "rateLimit: { messages: 1, perSeconds: 3600 }",
        "groupPolicy: allowlist",
        "groupAllowFrom: [-100555]",
        "",
      ].join("\n"),
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    served = await serveBin(["start", dir, "--port", "0"], { TELEGRAM_BOT_TOKEN: fake.token });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await fake?.close();
  });

  const to = (chatId: number) => fake.chat.botMessages.filter((m) => m.chatId === chatId).map((m) => m.text);

  it("a sender not in allowFrom gets the refusalReply once and no turn; one in it is answered, then told the rate limit", async () => {
    fake.chat.userSends({ chatId: 8080, text: "stranger one", from: { id: 8080, first_name: "Mallory" } });
    await eventually(() => to(8080).length > 0, "the refusal", 20_000);
    fake.chat.userSends({ chatId: 8080, text: "stranger two", from: { id: 8080, first_name: "Mallory" } });
    fake.chat.userSends({ chatId: 7070, text: "friend one", from: { id: 7070, first_name: "Ada" } });
    await eventually(() => to(7070).some((t) => t.includes("friend one")), "the friend's answer", 20_000);
    fake.chat.userSends({ chatId: 7070, text: "friend two", from: { id: 7070, first_name: "Ada" } });
    await eventually(() => to(7070).length > 1, "the rate-limit answer", 20_000);
    expect(to(7070)[1]).toMatch(
      /^You are sending messages faster than this assistant accepts \(1 per 60 minutes\)\. Please try again in /,
    );
    // The stranger's second message was taken in before the friend's: refused without a second answer.
    expect(to(8080)).toEqual(["Only friends of the owner, sorry."]);
    expect(to(7070).join("\n")).not.toContain("friend two");
  }, 60_000);

  it("groupPolicy allowlist: a group in groupAllowFrom is answered, any other group is ignored without a word", async () => {
    fake.chat.userSends({ chatId: -100666, text: "@agentsvc_bot other group", from: { id: 6161 } });
    fake.chat.userSends({ chatId: -100555, text: "@agentsvc_bot team group", from: { id: 6060 } });
    await eventually(
      () => to(-100555).some((t) => t.includes("team group")),
      "the listed group's answer",
      20_000,
    );
    // Taken in before the listed group's message: refused in silence.
    expect(to(-100666)).toEqual([]);
  }, 60_000);
});

describe("agentsvc start: approvals asked in a Telegram approvalDestination, decided only by its approvers", () => {
  let fake: TelegramFake;
  let served: Served;
  let marks: string;

  beforeAll(async () => {
    fake = await TelegramFake.start();
    marks = tempDir("agentsvc-approvals-marks-");
    const dir = writeFiles(tempDir("agentsvc-approvals-"), {
      "agents/bot.mjs": `import { writeFileSync } from "node:fs";
import { join } from "node:path";
export default { kind: "agent", name: "bot", model: { provider: "demo" }, approvals: { channel: "telegram" },
  tools: [{ kind: "tool", name: "transfer", description: "Moves money.", needsApproval: true,
    input: { type: "json-schema", schema: { type: "object", properties: { note: { type: "string" } } } },
    execute: () => { writeFileSync(join(process.env.KNOB_MARKS, "transferred"), ""); return "moved"; } }] };
`,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "gateways/telegram.yaml": [
        "type: telegram",
        "botTokenEnvVar: TELEGRAM_BOT_TOKEN",
        `apiBaseUrl: ${fake.url}`,
        'approvalDestination: "-100777"',
        'approvers: ["9999"]',
        "",
      ].join("\n"),
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    served = await serveBin(["start", dir, "--port", "0"], {
      TELEGRAM_BOT_TOKEN: fake.token,
      KNOB_MARKS: marks,
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await fake?.close();
  });

  it("an agent-route run's approval goes to the destination chat; a press by someone not in approvers is refused, an approver's runs the tool", async () => {
    const res = await fetch(`${served.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "use transfer now" }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "suspended", toolCalls: [{ name: "transfer" }] });
    await eventually(
      () => fake.chat.botMessages.some((m) => m.chatId === -100777 && m.replyMarkup),
      "the approval card in the destination chat",
      20_000,
    );
    const card = fake.chat.botMessages.find(
      (m) => m.chatId === -100777 && m.replyMarkup,
    ) as (typeof fake.chat.botMessages)[number];
    const approve = card.replyMarkup?.inline_keyboard.flat()[0]?.callback_data as string;
    const press = (from: number) =>
      fake.chat.press({ chatId: -100777, messageId: card.messageId, data: approve, from: { id: from } });
    const stranger = press(8080);
    await eventually(
      () => fake.chat.callbackAnswers.get(stranger.callbackQueryId) !== undefined,
      "the stranger's answer",
      20_000,
    );
    expect(fake.chat.callbackAnswers.get(stranger.callbackQueryId)?.text).toMatch(
      /^8080 may not decide interaction request "req_/,
    );
    expect(existsSync(join(marks, "transferred"))).toBe(false);
    const owner = press(9999);
    await eventually(
      () => fake.chat.callbackAnswers.get(owner.callbackQueryId) !== undefined,
      "the approver's answer",
      20_000,
    );
    expect(fake.chat.callbackAnswers.get(owner.callbackQueryId)?.text).toBe("Approved");
    await eventually(() => existsSync(join(marks, "transferred")), "the tool run", 20_000);
    await eventually(
      () => card.replyMarkup?.inline_keyboard[0]?.[0]?.text === "✅ Approved",
      "the card showing the outcome",
      20_000,
    );
  }, 60_000);
});

describe("agentsvc start: the config's port, and PORT over it", () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.stop();
    served = undefined;
  });

  const project = (port: number) =>
    writeFiles(tempDir("agentsvc-port-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agentsvc.config.yaml": `port: ${port}\n`,
    });

  it("listens on the config's port when neither --port nor PORT is given", async () => {
    const port = await freePort();
    served = await serveBin(["start", project(port)]);
    expect(served.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${served.url}/health/live`)).status).toBe(200);
  });

  it("PORT wins over the config's port", async () => {
    const [fromConfig, fromEnv] = [await freePort(), await freePort()];
    served = await serveBin(["start", project(fromConfig)], { PORT: String(fromEnv) });
    expect(served.url).toBe(`http://127.0.0.1:${fromEnv}`);
  });
});

describe("agentsvc start: an MCP exposure's apiKeyEnvVar", () => {
  let served: Served;
  const MCP_KEY = "mcp-key-6502";

  beforeAll(async () => {
    const dir = writeFiles(tempDir("agentsvc-mcp-key-"), {
      "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: t\napiKeyEnvVar: MCP_KEY\n",
      "agents/bot.mjs": BOT_AGENT,
      "mcp/t.mjs": `import { defineToolServer } from "@agentsvc/mcp";\nexport default defineToolServer({ name: "t", tools: [] });\n`,
    });
    linkPackages(dir, { "@agentsvc/agent-core": "packages/agent-core", "@agentsvc/mcp": "packages/mcp" });
    served = await serveBin(["start", dir, "--port", "0"], { MCP_KEY });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
  });

  const initialize = (headers: Record<string, string>) =>
    fetch(`${served.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "test", version: "1" },
        },
      }),
      signal: AbortSignal.timeout(10_000),
    });

  it("refuses an MCP client without the key or with another (401) and serves one that sends it", async () => {
    expect((await initialize({})).status).toBe(401);
    expect((await initialize({ authorization: "Bearer not-it" })).status).toBe(401);
    const ok = await initialize({ authorization: `Bearer ${MCP_KEY}` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"serverInfo":{"name":"t"');
    expect((await initialize({ "x-api-key": MCP_KEY })).status).toBe(200);
  });
});

describe("agentsvc start: a Telegram entry's media block (types, transcribe, showTranscript false, unsupported ignore)", () => {
  const JPEG = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(3000, 9)]);
  const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(3000, 4)]);
  let telegram: TelegramFake;
  let whisper: FakeTranscriptions;
  let served: Served;

  beforeAll(async () => {
    telegram = await TelegramFake.start();
    whisper = await FakeTranscriptions.start({ text: "turn on the lights" });
    const dir = writeFiles(tempDir("agentsvc-media-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/telegram.yaml": [
        "type: telegram",
        "botTokenEnvVar: TELEGRAM_BOT_TOKEN",
        `apiBaseUrl: ${telegram.url}`,
        "media:",
        "  types: [audio]",
        "  transcribe: true",
        `  transcriptionModel: { model: openai/whisper-1, baseURL: "${whisper.baseURL}" }`,
        "  showTranscript: false",
        "  unsupported: ignore",
        "",
      ].join("\n"),
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    served = await serveBin(["start", dir, "--port", "0"], {
      TELEGRAM_BOT_TOKEN: telegram.token,
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await whisper?.close();
    await telegram?.close();
  });

  it("a picture (not in types) gets no answer; a voice note is transcribed and answered without the quoted transcript", async () => {
    const send = (id: number, fields: Record<string, unknown>) =>
      telegram.pushUpdate({
        message: {
          message_id: id,
          from: { id: 6161, is_bot: false, first_name: "Ada" },
          chat: { id: 6161, type: "private" },
          date: Math.floor(Date.now() / 1000),
          ...fields,
        },
      });
    send(1, { photo: [{ ...telegram.files.host(JPEG, "jpg"), width: 1, height: 1 }] });
    send(2, { voice: { ...telegram.files.host(OGG, "oga"), duration: 2, mime_type: "audio/ogg" } });
    const texts = () => telegram.chat.botMessages.map((m) => m.text);
    await eventually(
      () => texts().some((t) => t.includes("turn on the lights")),
      "the reply to the voice note",
      20_000,
    );
    expect(whisper.requests).toMatchObject([{ status: 200, model: "whisper-1" }]);
    // The picture, taken in first, got nothing ("I can't take pictures here." with unsupported: reply).
    expect(texts()).toHaveLength(1);
    expect(texts()[0]).not.toMatch(/^🎙/);
  }, 60_000);
});

describe("agentsvc start: a Telegram entry's pairingCodeTtlSeconds, gatewayRateLimit and groupPolicy disabled", () => {
  let fake: TelegramFake;
  let served: Served;

  beforeAll(async () => {
    fake = await TelegramFake.start();
    const dir = writeFiles(tempDir("agentsvc-pairing-ttl-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/telegram.yaml": [
        "type: telegram",
        "botTokenEnvVar: TELEGRAM_BOT_TOKEN",
        `apiBaseUrl: ${fake.url}`,
        "dmPolicy: pairing",
        "pairingCodeTtlSeconds: 300",
        "allowFrom: [7070, 7171]",
        "gatewayRateLimit: { messages: 1, perSeconds: 7200 }",
        "groupPolicy: disabled",
        "",
      ].join("\n"),
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    served = await serveBin(["start", dir, "--port", "0"], { TELEGRAM_BOT_TOKEN: fake.token });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await fake?.close();
  });

  const to = (chatId: number) => fake.chat.botMessages.filter((m) => m.chatId === chatId).map((m) => m.text);

  it("a stranger's pairing code is valid for the entry's pairingCodeTtlSeconds; the whole entry takes gatewayRateLimit's messages, whoever sends them; no group is answered (groupPolicy: disabled)", async () => {
    // Taken in first: admitted, it would take the entry's one message of the window (gatewayRateLimit).
    fake.chat.userSends({ chatId: -100444, text: "@agentsvc_bot in the group", from: { id: 7070 } });
    fake.chat.userSends({ chatId: 8080, text: "let me in", from: { id: 8080 } });
    await eventually(() => to(8080).length > 0, "the pairing answer", 20_000);
    expect(to(8080)[0]).toMatch(/pairing code: [A-Z2-9]{8} \(valid for 5 minutes\)/);
    fake.chat.userSends({ chatId: 7070, text: "first of the hour", from: { id: 7070 } });
    await eventually(() => to(7070).some((t) => t.includes("first of the hour")), "the first answer", 20_000);
    fake.chat.userSends({ chatId: 7171, text: "second sender", from: { id: 7171 } });
    await eventually(() => to(7171).length > 0, "the second sender's answer", 20_000);
    expect(to(7171)).toEqual([
      "You are sending messages faster than this assistant accepts (1 per 2 hours). Please try again in 2 hours.",
    ]);
    expect(to(-100444)).toEqual([]);
  }, 60_000);
});

describe("agentsvc start: channel entries of type cli and mock", () => {
  let served: Served;
  let marks: string;

  beforeAll(async () => {
    marks = tempDir("agentsvc-cli-channel-marks-");
    const dir = writeFiles(tempDir("agentsvc-cli-channel-"), {
      // No approvals.channel: the cli entry is the default approval channel.
      "agents/bot.mjs": `import { writeFileSync } from "node:fs";
import { join } from "node:path";
export default { kind: "agent", name: "bot", model: { provider: "demo" },
  tools: [{ kind: "tool", name: "launch", description: "Launches the rocket.", needsApproval: true,
    input: { type: "json-schema", schema: { type: "object", properties: { note: { type: "string" } } } },
    execute: () => { writeFileSync(join(process.env.KNOB_MARKS, "launched"), ""); return "launched"; } }] };
`,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "gateways/cli.yaml": "type: cli\n",
      "gateways/mock.yaml": "type: mock\n",
    });
    // `mock` is loaded from the project's @agentsvc/session-core/testing.
    linkPackages(dir, { "@agentsvc/session-core": "packages/session-core" });
    served = await serveBin(["start", dir, "--port", "0"], { KNOB_MARKS: marks });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
  });

  it("an agent-route run's approval is asked on the service's stdin/stdout (type: cli) and the answer A runs the tool; the mock entry is registered beside it", async () => {
    const res = await fetch(`${served.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "please launch it" }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "suspended", toolCalls: [{ name: "launch" }] });
    await outputUntil(
      served,
      (o) =>
        /Approval needed \(request req_[^\n]*\nTool: launch\n[\s\S]*\[A\]pprove, \[R\]eject, \[Q\]uit/.test(
          o,
        ),
      20_000,
    );
    expect(existsSync(join(marks, "launched"))).toBe(false);
    served.proc.stdin?.write("A\n");
    await outputUntil(served, (o) => o.includes("Recorded: approved."), 20_000);
    await eventually(() => existsSync(join(marks, "launched")), "the tool run", 20_000);
    expect(served.output()).not.toContain("approval request rejected at once");
    // Loaded from the project's session-core (its vitest-free ./mock entry) and started.
    expect(served.output()).toMatch(/"gateway":"mock","msg":"gateway started"/);
  }, 60_000);
});
