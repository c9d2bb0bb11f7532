// Budgets by scope through the built bin: `budgets.perUser` gives each chat page account its own
// daily token budget, so one account that spent its own is refused (429 budget_exceeded) while
// another account's turns still run, and the ledger (`agentsvc usage --by user`) keeps them apart;
// `budgets.perGateway` refuses each push entry's turns (the chat gets the notice), an entry named in
// `budgets.gateways` gets its own limit instead, and the agent route (no gateway) is not refused.
// The Telegram entry there has `dmPolicy: disabled`: a direct message gets no turn and no word.
import { hashPassword } from "@agentsvc/chat-store";
import {
  eventually,
  FakeOpenAI,
  type FakeSignalDaemon,
  OPENAI_TEST_KEY,
  startSignalDaemon,
  TelegramFake,
} from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outputUntil, runBinAsync, type Served, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

describe("agentsvc start: budgets.perUser on a chat page with two accounts", () => {
  let fake: FakeOpenAI;
  let served: Served;
  let dir: string;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ fallback: { text: ["Sure."], usage: { input: 100, output: 20 } } });
    // Hashes of few iterations (the hash names its count): the file is about budgets, and each seed
    // or sign-in at the default 600,000 cost about 0.2 CPU-s.
    const hash = (password: string) => hashPassword(password, { iterations: 1000 });
    dir = writeFiles(tempDir("agentsvc-budget-scopes-"), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot",
  model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(fake.baseURL)} } };\n`,
      "gateways/web.yaml": [
        "exposes: webui",
        "path: /chat",
        "users:",
        "  - username: ada",
        `    passwordHash: "${await hash("ada-pw")}"`,
        "  - username: bob",
        `    passwordHash: "${await hash("bob-pw")}"`,
        "",
      ].join("\n"),
      "agentsvc.config.yaml": "budgets:\n  perUser: { day: { tokens: 100 } }\n",
    });
    served = await serveBin(["start", dir, "--port", "0"], {
      OPENAI_API_KEY: OPENAI_TEST_KEY,
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await fake?.close();
  });

  async function signIn(username: string, password: string): Promise<string> {
    const res = await fetch(`${served.url}/chat/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password }),
    });
    expect(res.status).toBe(200);
    return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  }

  // Each account in a conversation of its own (another account's conversation id is refused, 403).
  const invoke = (cookie: string, conversationId: string, input: string) =>
    fetch(`${served.url}/chat/api/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ input, conversationId }),
      signal: AbortSignal.timeout(15_000),
    });

  it("refuses the account that spent its own budget while the other account's turn runs", async () => {
    const ada = await signIn("ada", "ada-pw");
    const bob = await signIn("bob", "bob-pw");
    expect((await invoke(ada, "ada-1", "first")).status).toBe(200);
    const before = fake.count;
    const refused = await invoke(ada, "ada-1", "second");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
    expect(fake.count).toBe(before);
    const other = await invoke(bob, "bob-1", "mine");
    expect(other.status).toBe(200);
    expect(fake.count).toBe(before + 1);

    const usage = await runBinAsync(["usage", "--dir", dir, "--by", "user", "--json"]);
    expect(usage.code, usage.stderr).toBe(0);
    const rows = (
      JSON.parse(usage.stdout) as { rows: { user: string; calls: number; inputTokens: number }[] }
    ).rows;
    expect(rows.map((r) => [r.user, r.calls, r.inputTokens]).sort()).toEqual([
      [expect.stringContaining("ada"), 1, 100],
      [expect.stringContaining("bob"), 1, 100],
    ]);
  }, 60_000);
});

describe("agentsvc start: budgets.perGateway, and gateways naming one entry's own", () => {
  const SIGNAL_ACCOUNT = "+15550000001";
  let telegram: TelegramFake;
  let signal: FakeSignalDaemon;
  let served: Served;

  beforeAll(async () => {
    [telegram, signal] = await Promise.all([
      TelegramFake.start(),
      startSignalDaemon({ accounts: [SIGNAL_ACCOUNT] }),
    ]);
    const dir = writeFiles(tempDir("agentsvc-budget-gateway-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      // dmPolicy disabled: direct messages get no turn and no word; groups are still answered.
      "gateways/telegram.yaml": `type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\napiBaseUrl: ${telegram.url}\ndmPolicy: disabled\n`,
      "gateways/signal.yaml": `type: signal\naccountEnvVar: SIGNAL_ACCOUNT\nhttpUrl: ${signal.url}\n`,
      "agentsvc.config.yaml": [
        "budgets:",
        "  perGateway: { day: { cost: 0 } }",
        "  gateways:",
        "    signal: { day: { tokens: 1000000 } }",
        "",
      ].join("\n"),
    });
    linkPackages(dir, {
      "@agentsvc/gateway-telegram": "packages/gateway-telegram",
      "@agentsvc/gateway-signal": "packages/gateway-signal",
    });
    served = await serveBin(["start", dir, "--port", "0"], {
      TELEGRAM_BOT_TOKEN: telegram.token,
      SIGNAL_ACCOUNT,
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await Promise.all([telegram?.close(), signal?.close()]);
  });

  const NOTICE =
    /^Sorry, this service has used up its AI budget for now\. Please try again in \d+ (minutes|hours)\.$/;

  it("perGateway refuses a push entry's turns with the budget notice in the chat (a group: dmPolicy disabled leaves a direct message unanswered), while the agent route (no gateway) still answers", async () => {
    // Taken in first: refused by dmPolicy without a word (else it would get the notice too).
    telegram.chat.userSends({ chatId: 4343, text: "over budget?", from: { id: 4343 } });
    telegram.chat.userSends({ chatId: -100434, text: "@agentsvc_bot over budget?", from: { id: 4343 } });
    await eventually(() => telegram.chat.botMessages.length > 0, "the group's answer", 20_000);
    expect(telegram.chat.botMessages.map((m) => [m.chatId, m.text])).toEqual([
      [-100434, expect.stringMatching(NOTICE)],
    ]);
    await outputUntil(served, (o) =>
      /"budget":"gateway","name":"telegram".*budget spent: model call refused/.test(o),
    );
    const res = await fetch(`${served.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "route" }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: string }).output).toContain("route");
  }, 60_000);

  it("an entry named in gateways gets its own limit instead of perGateway's: Signal is answered", async () => {
    await eventually(() => signal.connections.length > 0, "the Signal stream", 20_000);
    signal.receive(SIGNAL_ACCOUNT, { from: "+15550000002", text: "signal here" });
    const to = (number: string) => signal.sent.filter((m) => m.recipient === number).map((m) => m.message);
    await eventually(() => to("+15550000002").length > 0, "the Signal answer", 20_000);
    expect(to("+15550000002")).toEqual([expect.stringContaining("signal here")]);
  }, 60_000);
});
