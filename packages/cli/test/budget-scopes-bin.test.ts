// Budgets per user through the built bin: `budgets.perUser` gives each chat page account its own
// daily token budget, so one account that spent its own is refused (429 budget_exceeded) while
// another account's turns still run; the ledger (`agentsvc usage --by user`) keeps them apart.
import { FakeOpenAI, OPENAI_TEST_KEY } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBin, type Served, serveBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

describe("agentsvc start: budgets.perUser on a chat page with two accounts", () => {
  let fake: FakeOpenAI;
  let served: Served;
  let dir: string;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ fallback: { text: ["Sure."], usage: { input: 100, output: 20 } } });
    dir = writeFiles(tempDir("agentsvc-budget-scopes-"), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot",
  model: { provider: "openai", model: "gpt-4o-mini", baseURL: ${JSON.stringify(fake.baseURL)} } };\n`,
      "gateways/web.yaml": [
        "exposes: webui",
        "path: /chat",
        "users:",
        "  - username: ada",
        "    passwordEnvVar: ADA_PASSWORD",
        "  - username: bob",
        "    passwordEnvVar: BOB_PASSWORD",
        "",
      ].join("\n"),
      "agentsvc.config.yaml": "budgets:\n  perUser: { day: { tokens: 100 } }\n",
    });
    served = await serveBin(["start", dir, "--port", "0"], {
      OPENAI_API_KEY: OPENAI_TEST_KEY,
      ADA_PASSWORD: "ada-pw",
      BOB_PASSWORD: "bob-pw",
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

    const usage = runBin(["usage", "--dir", dir, "--by", "user", "--json"]);
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
