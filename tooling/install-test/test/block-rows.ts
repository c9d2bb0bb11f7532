// One row per documented configuration block: the files it adds to the scaffolded project, and what
// a user would check to see the feature work through the installed `agentsvc` bin. Every row runs
// against the same packed install (install-outside.test.ts); its files are taken out after it.
import { createHmac, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { postgresBinDir, startPostgres } from "@agentsvc/pg-test";
import {
  DiscordFake,
  eventually,
  FakeGitHub,
  FakeTeams,
  FakeTwilio,
  FakeWhatsApp,
  SlackFake,
  startSignalDaemon,
  TelegramFake,
} from "@agentsvc/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { startOtlpReceiver } from "./otlp-receiver.js";
import type { Ran, StartOptions, Started } from "./outside.js";

export interface RowContext {
  /** Writes project files for this row (the scaffolded ones it replaces come back after it). */
  write(files: Record<string, string>): void;
  /** Starts the installed bin in the project (stopped after the row; its exit code must be 0). */
  start(options?: StartOptions): Promise<Started>;
  /** Runs after the row, last registered first. */
  cleanup(fn: () => Promise<void> | void): void;
  /** Runs another verb of the installed bin in the project (`pairing list`), bounded. */
  bin(args: string[]): Promise<Ran>;
  /** The project folder (a row that installs a package of its own runs npm there). */
  project: string;
}

export interface BlockRow {
  block: string;
  behaviour: string;
  run(ctx: RowContext): Promise<void>;
}

const REPLY_MS = 20_000;

async function invoke(url: string, input: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/agent/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ input, conversationId: "install-test" }),
    signal: AbortSignal.timeout(REPLY_MS),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { output: string }).output;
}

/** gateway-http's v2 scheme as its README states it: HMAC-SHA256 over "<ts>.<METHOD> <target>\n<body>". */
function signedHttp(secret: string, method: string, target: string, body = ""): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const digest = createHmac("sha256", secret).update(`${ts}.${method} ${target}\n${body}`).digest("hex");
  return { "x-agentsvc-timestamp": ts, "x-agentsvc-signature": `v2=${digest}` };
}

const PUSH_ROWS: BlockRow[] = [
  {
    block: "gateways/telegram.yaml with dmPolicy: pairing",
    behaviour:
      "a stranger gets a pairing code and no turn; `agentsvc pairing approve` lets their next message through",
    async run(ctx) {
      const fake = await TelegramFake.start();
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${fake.url}\ndmPolicy: pairing\n`,
      });
      await ctx.start({ env: { TELEGRAM_BOT_TOKEN: fake.token } });
      fake.chat.userSends({ chatId: 7070, text: "let me in", from: { id: 7070, first_name: "Eve" } });
      await eventually(() => fake.chat.botMessages.length > 0, "the pairing answer", REPLY_MS);
      const answer = fake.chat.botMessages[0]?.text ?? "";
      const code = /pairing code: ([A-Z2-9]{8})/.exec(answer)?.[1] as string;
      expect(code, answer).toBeDefined();
      expect(answer).not.toContain("let me in");
      const listed = await ctx.bin(["pairing", "list", "--json"]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).pending).toMatchObject([{ code, gateway: "telegram", user: "7070" }]);
      const approved = await ctx.bin(["pairing", "approve", code]);
      expect(approved.code, approved.stderr).toBe(0);
      fake.chat.userSends({
        chatId: 7070,
        text: "hello after pairing",
        from: { id: 7070, first_name: "Eve" },
      });
      await eventually(() => fake.chat.botMessages.length > 1, "the agent's answer", REPLY_MS);
      expect(fake.chat.botMessages[1]?.text).toContain("hello after pairing");
    },
  },
  {
    block: "gateways/telegram.yaml (type: telegram)",
    behaviour: "answers a Telegram message through the Bot API",
    async run(ctx) {
      const fake = await TelegramFake.start();
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${fake.url}\n`,
      });
      await ctx.start({ env: { TELEGRAM_BOT_TOKEN: fake.token } });
      fake.chat.userSends({
        chatId: 4242,
        text: "hello from telegram",
        from: { id: 4242, first_name: "Ada" },
      });
      await eventually(() => fake.chat.botMessages.length > 0, "the Telegram reply", REPLY_MS);
      expect(fake.chat.botMessages[0]?.text).toContain("hello from telegram");
    },
  },
  {
    block: "schedules/digest.yaml (cron, to a Telegram chat)",
    behaviour:
      "posts the agent's answer to the schedule's prompt into the chat; schedules list shows it delivered",
    async run(ctx) {
      const fake = await TelegramFake.start();
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${fake.url}\n`,
        // Every two seconds (six fields), so the row sees a tick at once.
        "schedules/digest.yaml":
          "cron: '*/2 * * * * *'\nprompt: scheduled digest please\nto: { gateway: telegram, thread: 4343 }\n",
      });
      await ctx.start({ env: { TELEGRAM_BOT_TOKEN: fake.token } });
      await eventually(
        () => fake.chat.botMessages.some((m) => m.chatId === 4343),
        "the scheduled message",
        REPLY_MS,
      );
      expect(fake.chat.botMessages.find((m) => m.chatId === 4343)?.text).toContain("scheduled digest please");
      await eventually(
        async () => {
          const listed = await ctx.bin(["schedules", "list", "--json"]);
          return (
            (JSON.parse(listed.stdout) as { lastOutcome: string | null }[])[0]?.lastOutcome === "delivered"
          );
        },
        "schedules list: delivered",
        REPLY_MS,
      );
    },
  },
  {
    block: "agents/assistant.ts reminders (the remind tool)",
    behaviour:
      "a reminder set in a Telegram chat is delivered back into it once; the reminder's own turn cannot set another; schedules list shows it done",
    async run(ctx) {
      const fake = await TelegramFake.start();
      ctx.cleanup(() => fake.close());
      // The demo script plays in every turn: the reminder's turn calls remind too, and is refused.
      const script = [
        { toolCalls: [{ name: "remind", arguments: { text: "stretch your legs", in: "10s" } }] },
        { text: "Reminder noted." },
      ];
      ctx.write({
        "agents/assistant.ts": `import { defineAgent } from "@agentsvc/agent-core";\nexport default defineAgent({ name: "assistant", model: { provider: "demo", script: ${JSON.stringify(script)} }, reminders: { maxPerUser: 3 } });\n`,
        "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${fake.url}\n`,
      });
      await ctx.start({ env: { TELEGRAM_BOT_TOKEN: fake.token } });
      fake.chat.userSends({ chatId: 4545, text: "remind me to stretch in 10 seconds", from: { id: 4545 } });
      const inChat = () => fake.chat.botMessages.filter((m) => m.chatId === 4545);
      await eventually(() => inChat().length >= 2, "the answer and the reminder", REPLY_MS + 10_000);
      type Listed = { name: string; state: string; lastOutcome: string | null };
      let rows: Listed[] = [];
      await eventually(
        async () => {
          rows = JSON.parse((await ctx.bin(["schedules", "list", "--json"])).stdout) as Listed[];
          return rows[0]?.lastOutcome === "delivered";
        },
        "schedules list: the reminder delivered",
        REPLY_MS,
      );
      expect(rows).toEqual([expect.objectContaining({ name: "reminder:1", state: "done" })]);
      expect(inChat().map((m) => m.text)).toEqual(["Reminder noted.", "Reminder noted."]);
    },
  },
  {
    block: "gateways/slack.yaml (type: slack)",
    behaviour: "answers a Slack message over Socket Mode",
    async run(ctx) {
      const fake = await SlackFake.start();
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/slack.yaml": `type: slack\nbotTokenEnvVar: SLACK_BOT_TOKEN\nappTokenEnvVar: SLACK_APP_TOKEN\napiBaseUrl: ${fake.apiBaseUrl}\n`,
      });
      await ctx.start({ env: { SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken } });
      await eventually(() => fake.openConnections.length > 0, "the Socket Mode connection", REPLY_MS);
      await fake.workspace.userSays({ channel: "D0GRACE", user: "U0GRACE", text: "hello from slack" }).acked;
      await eventually(() => fake.workspace.botMessages.length > 0, "the Slack reply", REPLY_MS);
      expect(fake.workspace.botMessages[0]?.text).toContain("hello from slack");
    },
  },
  {
    block: "gateways/discord.yaml (type: discord)",
    behaviour: "answers a Discord message over the Gateway websocket",
    async run(ctx) {
      const fake = await DiscordFake.start({ heartbeatIntervalMs: 5_000 });
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/discord.yaml": `type: discord\nbotTokenEnvVar: DISCORD_BOT_TOKEN\napiBaseUrl: ${fake.apiBaseUrl}\n`,
      });
      await ctx.start({ env: { DISCORD_BOT_TOKEN: fake.token } });
      await eventually(() => fake.sessions.current !== undefined, "the Discord READY", REPLY_MS);
      fake.sessions.userSays({
        channelId: "810000000000000001",
        authorId: "710000000000000001",
        content: "hello from discord",
      });
      await eventually(() => fake.rest.botMessages.length > 0, "the Discord reply", REPLY_MS);
      expect(fake.rest.botMessages[0]?.content).toContain("hello from discord");
    },
  },
  {
    block: "gateways/signal.yaml (type: signal)",
    behaviour: "answers a Signal message through the signal-cli daemon's HTTP API",
    async run(ctx) {
      const account = "+15550000001";
      const daemon = await startSignalDaemon({ accounts: [account] });
      ctx.cleanup(() => daemon.close());
      ctx.write({
        "gateways/signal.yaml": `type: signal\naccountEnvVar: SIGNAL_ACCOUNT\nhttpUrl: ${daemon.url}\n`,
      });
      await ctx.start({ env: { SIGNAL_ACCOUNT: account } });
      // signal-cli's default receive mode hands a message only to the streams open when it arrives.
      await eventually(() => daemon.connections.length > 0, "the event stream", REPLY_MS);
      daemon.receive(account, { from: "+15550000002", text: "hello from signal" });
      await eventually(() => daemon.sent.length > 0, "the Signal reply", REPLY_MS);
      expect(daemon.sent[0]).toMatchObject({ recipient: "+15550000002" });
      expect(daemon.sent[0]?.message).toContain("hello from signal");
    },
  },
];

const WEBHOOK_ROWS: BlockRow[] = [
  {
    block: "gateways/hooks.yaml (type: http)",
    behaviour: "accepts a signed event, refuses a forged one, and serves the reply to a signed read",
    async run(ctx) {
      const secret = randomBytes(16).toString("hex");
      ctx.write({ "gateways/hooks.yaml": "type: http\nsecretEnvVar: HOOKS_SECRET\n" });
      const server = await ctx.start({ env: { HOOKS_SECRET: secret } });
      const target = "/gateways/hooks/events";
      const body = JSON.stringify({ id: "ev-1", thread: "t1", text: "hello from http" });
      const post = (headers: Record<string, string>) =>
        fetch(`${server.url}${target}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
          signal: AbortSignal.timeout(REPLY_MS),
        });
      expect((await post(signedHttp("not-the-secret", "POST", target, body))).status).toBe(401);
      expect((await post(signedHttp(secret, "POST", target, body))).status).toBe(202);
      const read = "/gateways/hooks/threads/t1/messages?after=0";
      let texts: string[] = [];
      await eventually(
        async () => {
          const res = await fetch(`${server.url}${read}`, { headers: signedHttp(secret, "GET", read) });
          texts =
            ((await res.json()) as { messages?: { text: string }[] }).messages?.map((m) => m.text) ?? [];
          return texts.length > 0;
        },
        "the reply in the outbox",
        REPLY_MS,
      );
      expect(texts[0]).toContain("hello from http");
    },
  },
  {
    block: "gateways/whatsapp.yaml (type: whatsapp)",
    behaviour: "serves the subscription handshake and answers a signed delivery",
    async run(ctx) {
      const env = {
        WA_ACCESS_TOKEN: "tok",
        WA_PHONE_NUMBER_ID: "1065",
        WA_APP_SECRET: "app-secret",
        WA_VERIFY_TOKEN: "vt",
      };
      const fake = await FakeWhatsApp.start({
        appSecret: env.WA_APP_SECRET,
        accessToken: env.WA_ACCESS_TOKEN,
        phoneNumberId: env.WA_PHONE_NUMBER_ID,
        verifyToken: env.WA_VERIFY_TOKEN,
      });
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/whatsapp.yaml": [
          "type: whatsapp",
          "accessTokenEnvVar: WA_ACCESS_TOKEN",
          "phoneNumberIdEnvVar: WA_PHONE_NUMBER_ID",
          "appSecretEnvVar: WA_APP_SECRET",
          "verifyTokenEnvVar: WA_VERIFY_TOKEN",
          `apiBaseUrl: ${fake.url}`,
          "",
        ].join("\n"),
      });
      const server = await ctx.start({ env });
      fake.webhookUrl = `${server.url}/webhooks/whatsapp`;
      expect(await fake.handshake("42")).toMatchObject({ status: 200, body: "42" });
      expect(
        (await fake.deliverText({ from: "15550001", text: "hello from whatsapp", id: "wamid.1" })).status,
      ).toBe(200);
      await eventually(() => fake.sent.length > 0, "the WhatsApp reply", REPLY_MS);
      expect(fake.sent[0]?.text).toContain("hello from whatsapp");
    },
  },
  {
    block: "gateways/twilio.yaml (type: twilio)",
    behaviour: "answers a signed SMS through the Messages API",
    async run(ctx) {
      const env = {
        TW_ACCOUNT_SID: "AC00000000000000000000000000000001",
        TW_AUTH_TOKEN: "auth-token",
        TW_FROM: "+15005550006",
      };
      const fake = await FakeTwilio.start({
        accountSid: env.TW_ACCOUNT_SID,
        authToken: env.TW_AUTH_TOKEN,
        number: env.TW_FROM,
      });
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/twilio.yaml": `type: twilio\naccountSidEnvVar: TW_ACCOUNT_SID\nauthTokenEnvVar: TW_AUTH_TOKEN\nfromEnvVar: TW_FROM\napiBaseUrl: ${fake.url}\n`,
      });
      const server = await ctx.start({ env });
      fake.webhookUrl = `${server.url}/webhooks/twilio`;
      expect((await fake.deliverSms({ from: "+15550001", body: "hello from sms" })).status).toBe(200);
      await eventually(() => fake.sent.length > 0, "the SMS reply", REPLY_MS);
      expect(fake.sent[0]).toMatchObject({ to: "+15550001", from: env.TW_FROM });
      expect(fake.sent[0]?.body).toContain("hello from sms");
    },
  },
  {
    block: "gateways/github.yaml (type: github)",
    behaviour: "answers a signed mention with a comment",
    async run(ctx) {
      const env = { GH_TOKEN: "ghs_x", GH_WEBHOOK_SECRET: "hook-secret", GH_BOT_NAME: "helper" };
      const fake = await FakeGitHub.start({
        token: env.GH_TOKEN,
        webhookSecret: env.GH_WEBHOOK_SECRET,
        botName: env.GH_BOT_NAME,
      });
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/github.yaml": `type: github\ntokenEnvVar: GH_TOKEN\nwebhookSecretEnvVar: GH_WEBHOOK_SECRET\nbotNameEnvVar: GH_BOT_NAME\napiBaseUrl: ${fake.url}\n`,
      });
      const server = await ctx.start({ env });
      fake.webhookUrl = `${server.url}/webhooks/github`;
      const alice = { login: "alice", id: 1, type: "User" as const };
      expect(
        (await fake.commentOnIssue({ number: 3, body: "@helper hello from github", user: alice })).status,
      ).toBe(200);
      await eventually(() => fake.posted.length > 0, "the comment", REPLY_MS);
      expect(fake.posted[0]).toMatchObject({ target: "issues/3" });
      expect(fake.posted[0]?.body).toContain("hello from github");
    },
  },
  {
    block: "gateways/teams.yaml (type: teams)",
    behaviour: "answers an authenticated activity through the connector",
    async run(ctx) {
      const env = { TEAMS_APP_ID: "app-0001", TEAMS_APP_PASSWORD: "pw" };
      const fake = await FakeTeams.start({ appId: env.TEAMS_APP_ID, appPassword: env.TEAMS_APP_PASSWORD });
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/teams.yaml": [
          "type: teams",
          "appIdEnvVar: TEAMS_APP_ID",
          "appPasswordEnvVar: TEAMS_APP_PASSWORD",
          `openIdMetadataUrl: ${fake.openIdMetadataUrl}`,
          `loginBaseUrl: ${fake.loginBaseUrl}`,
          `serviceUrl: ${fake.serviceUrl}`,
          "",
        ].join("\n"),
      });
      const server = await ctx.start({ env });
      fake.webhookUrl = `${server.url}/webhooks/teams`;
      const alice = { id: "29:alice", name: "Alice", aadObjectId: "aad-alice" };
      const activity = fake.messageActivity({
        conversationId: "a:1srv",
        from: alice,
        text: "hello from teams",
      });
      expect((await fake.deliver(activity)).status).toBe(200);
      await eventually(() => fake.sent.length > 0, "the Teams reply", REPLY_MS);
      expect(fake.sent[0]?.text).toContain("hello from teams");
    },
  },
];

const SERVICE_ROWS: BlockRow[] = [
  {
    block: "agentsvc.config.yaml metrics",
    behaviour: "serves Prometheus series on /metrics, counting the requests made",
    async run(ctx) {
      ctx.write({ "agentsvc.config.yaml": "metrics:\n  path: /metrics\n" });
      const server = await ctx.start();
      await invoke(server.url, "counted");
      const res = await fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(REPLY_MS) });
      expect(res.status, server.output()).toBe(200);
      expect(await res.text()).toMatch(
        /^agentsvc_http_requests_total\{route="\/agent\/invoke",method="POST",status="200"\} 1$/m,
      );
    },
  },
  {
    block: "OTEL_EXPORTER_OTLP_ENDPOINT (trace export)",
    behaviour:
      "exports the request's and the run's spans to an OTLP/HTTP receiver, in one trace joined to the caller's",
    async run(ctx) {
      const receiver = await startOtlpReceiver();
      ctx.cleanup(() => receiver.close());
      const server = await ctx.start({
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: "my-agent",
          OTEL_BSP_SCHEDULE_DELAY: "100",
        },
      });
      const traceId = randomBytes(16).toString("hex");
      await invoke(server.url, "traced", {
        traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
      });
      const named = (name: string) => receiver.spans.find((s) => s.name === name);
      await eventually(
        () => named("invoke_agent assistant") !== undefined && named("POST /agent/invoke") !== undefined,
        "the request and invoke_agent spans at the receiver",
        REPLY_MS,
      );
      const request = named("POST /agent/invoke");
      // The run is in the request's trace; the request joins the caller's trace as a parent or,
      // by default (a caller's traceparent is not trusted), as a link.
      expect(named("invoke_agent assistant")).toMatchObject({
        traceId: request?.traceId,
        service: "my-agent",
      });
      const joined =
        request?.traceId === traceId || (request?.links ?? []).some((l) => l.traceId === traceId);
      expect(joined, JSON.stringify(request)).toBe(true);
    },
  },
  {
    block: "agentsvc.config.yaml prices and budgets",
    behaviour:
      "refuses a turn past a spent budget with 429 budget_exceeded and Retry-After, and agentsvc usage reads the ledger",
    async run(ctx) {
      ctx.write({
        "agentsvc.config.yaml": [
          "prices:",
          '  "demo/agentsvc-demo (scripted demo model)": { input: 1, output: 1 }',
          "budgets:",
          "  service: { day: { cost: 0 } }",
          "",
        ].join("\n"),
      });
      const server = await ctx.start();
      const res = await fetch(`${server.url}/agent/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "hello", conversationId: "install-test" }),
        signal: AbortSignal.timeout(REPLY_MS),
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await res.json()) as { error: { code: string; resetsAt: string } };
      expect(body.error.code).toBe("budget_exceeded");
      expect(body.error.resetsAt).toMatch(/T00:00:00\.000Z$/);
      const usage = await ctx.bin(["usage", "--json"]);
      expect(usage.code, usage.stderr).toBe(0);
      expect(JSON.parse(usage.stdout)).toMatchObject({ by: "model", total: { calls: 0 } });
    },
  },
  {
    block: "agentsvc.config.yaml datasources (type: postgres) as the store",
    behaviour: "keeps the conversation's memory in PostgreSQL",
    async run(ctx) {
      const pg = await startPostgres();
      ctx.cleanup(() => pg.stop());
      const url = await pg.createDatabase("installed");
      ctx.write({
        "agentsvc.config.yaml":
          "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\nstore: main\n",
      });
      const server = await ctx.start({ env: { DATABASE_URL: url } });
      expect(await invoke(server.url, "remember me")).toContain("remember me");
      const psql = `${postgresBinDir()}/psql`;
      const rows = execFileSync(
        psql,
        [url, "-tAc", "select count(*) from memory_messages where conversation_id = 'install-test'"],
        {
          encoding: "utf8",
          timeout: 15_000,
        },
      );
      expect(Number(rows.trim())).toBeGreaterThanOrEqual(2);
    },
  },
  {
    block: "gateways/web.yaml users (sign-in)",
    behaviour: "refuses the API before sign-in and serves it to the signed-in account",
    async run(ctx) {
      ctx.write({
        "gateways/web.yaml":
          "exposes: webui\npath: /chat\ntitle: my-agent\nusers:\n  - username: ada\n    passwordEnvVar: ADA_PASSWORD\n",
      });
      const server = await ctx.start({ env: { ADA_PASSWORD: "correct horse" } });
      const api = `${server.url}/chat/api`;
      expect((await fetch(`${api}/conversations`)).status).toBe(401);
      const login = (password: string) =>
        fetch(`${api}/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: "ada", password }),
        });
      expect((await login("wrong")).status).toBe(401);
      const ok = await login("correct horse");
      expect(ok.status).toBe(200);
      const cookie = (ok.headers.get("set-cookie") ?? "").split(";")[0] as string;
      expect(cookie).not.toBe("");
      expect((await fetch(`${api}/conversations`, { headers: { cookie } })).status).toBe(200);
      const me = (await (await fetch(`${api}/auth/me`, { headers: { cookie } })).json()) as {
        user: { username: string };
      };
      expect(me.user.username).toBe("ada");
    },
  },
  {
    block: "gateways/web.yaml media (chat-page uploads)",
    behaviour:
      "an upload is typed by its bytes and stored; a message carries it to the model; /history and the file route give it back",
    async run(ctx) {
      ctx.write({
        "gateways/web.yaml":
          "exposes: webui\npath: /chat\ntitle: my-agent\nmedia:\n  maxBytes: 100000\n  types: [image]\n",
      });
      const server = await ctx.start();
      const api = `${server.url}/chat/api`;
      const png = Buffer.from(
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFElEQVR4nGP4z8DAwAAi/v//zwAAHfAE/EgTX4EAAAAASUVORK5CYII=",
        "base64",
      );
      const upload = (bytes: Uint8Array) =>
        fetch(`${api}/files`, { method: "POST", headers: { "x-file-name": "dot.png" }, body: bytes });
      // Not a picture by its bytes: refused whatever the name says.
      expect((await upload(Buffer.from("%PDF-1.4 not a picture"))).status).toBe(415);
      const up = await upload(png);
      expect(up.status).toBe(201);
      const { file } = (await up.json()) as { file: { id: string; contentType: string } };
      expect(file.contentType).toBe("image/png");
      const turn = await fetch(`${api}/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          input: "see",
          conversationId: "files",
          attachments: [{ id: file.id, name: "dot.png" }],
        }),
        signal: AbortSignal.timeout(REPLY_MS),
      });
      expect(((await turn.json()) as { output: string }).output).toContain('an image "dot.png" (image/png');
      const history = (await (await fetch(`${api}/history?conversationId=files`)).json()) as {
        messages: { attachments?: { blob: string }[] }[];
      };
      expect(history.messages[0]?.attachments?.[0]?.blob).toBe(file.id);
      const served = await fetch(`${api}/files/${file.id}/dot.png`);
      expect(served.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    },
  },
  {
    block: "gateways/tools.yaml (exposes: mcp)",
    behaviour: "serves a tool server that the MCP SDK client lists and calls",
    async run(ctx) {
      ctx.write({
        "mcp/project-tools.ts": [
          'import { defineTool } from "@agentsvc/agent-core";',
          'import { defineToolServer } from "@agentsvc/mcp";',
          'import * as v from "valibot";',
          "export default defineToolServer({",
          '  name: "project-tools",',
          "  tools: [",
          "    defineTool({",
          '      name: "multiply",',
          '      description: "Multiplies two numbers.",',
          "      input: v.object({ a: v.number(), b: v.number() }),",
          "      execute: ({ a, b }) => ({ product: a * b }),",
          "    }),",
          "  ],",
          "});",
          "",
        ].join("\n"),
        "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: project-tools\n",
      });
      const server = await ctx.start();
      const client = new Client({ name: "install-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      ctx.cleanup(() => client.close());
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("multiply");
      const result = (await client.callTool({ name: "multiply", arguments: { a: 6, b: 7 } })) as {
        content: { type: string; text?: string }[];
      };
      expect(result.content.map((c) => c.text ?? "").join("")).toContain("42");
    },
  },
  {
    block: "agentsvc dev",
    behaviour: "restarts when a gateway entry changes and serves the new route",
    async run(ctx) {
      const dev = await ctx.start({ args: ["dev", ".", "--port", "0"] });
      ctx.write({ "gateways/agent.yaml": "exposes: agent\npath: /agent2\n" });
      const listening = () => [...dev.output().matchAll(/listening (http:\/\/\S+)/g)];
      await eventually(() => listening().length >= 2, "the restarted service", REPLY_MS);
      expect(dev.output()).toContain("gateways/agent.yaml changed, restarting");
      const url = listening().at(-1)?.[1] as string;
      const res = await fetch(`${url}/agent2/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "after the edit" }),
      });
      expect(((await res.json()) as { output: string }).output).toContain("after the edit");
    },
  },
];

export const BLOCK_ROWS: BlockRow[] = [...SERVICE_ROWS, ...PUSH_ROWS, ...WEBHOOK_ROWS];

/** The adapter and store packages the rows' entries need (one npm install for all rows). */
export const ROW_PACKAGES = [
  "@agentsvc/gateway-discord",
  "@agentsvc/gateway-github",
  "@agentsvc/gateway-http",
  "@agentsvc/gateway-signal",
  "@agentsvc/gateway-slack",
  "@agentsvc/gateway-teams",
  "@agentsvc/gateway-telegram",
  "@agentsvc/gateway-twilio",
  "@agentsvc/gateway-whatsapp",
  "@agentsvc/pg-cluster",
  "@agentsvc/store-postgres",
];
