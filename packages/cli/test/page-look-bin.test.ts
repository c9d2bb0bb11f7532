// A chat page entry's own keys through the built bin: what the page shows (title, subtitle, icon,
// welcome, placeholder, footer, starterPrompts, showReasoning, showToolCalls), its look (theme
// tokens with dark overrides, themeFile), its apiKeyEnvVar on the page's API, and database.path.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

const PAGE_KEY = "page-key-8086";

describe("agentsvc start: a chat page entry's look, API key and store file", () => {
  let served: Served;
  let dir: string;

  beforeAll(async () => {
    dir = writeFiles(tempDir("agentsvc-page-look-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/web.yaml": [
        "exposes: webui",
        "path: /desk",
        "apiKeyEnvVar: PAGE_KEY",
        "database: { path: data/desk.db }",
        "title: Ops desk",
        "subtitle: Night shift",
        'icon: "🛰️"',
        "welcome: Ask about the fleet.",
        "placeholder: Type a question for ops",
        "footer: Answers may be wrong.",
        "starterPrompts: [Status of the fleet, Open incidents]",
        "showReasoning: false",
        "showToolCalls: false",
        "theme:",
        '  accent: "#0a7f5a"',
        "  radius: 3px",
        "  dark:",
        '    accent: "#4fd1a5"',
        "themeFile: desk.css",
        "",
      ].join("\n"),
      "desk.css": ".footer { letter-spacing: 0.07em; }\n",
    });
    served = await serveBin(["start", dir, "--port", "0"], { PAGE_KEY });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
  });

  it("the page carries the entry's texts, starter prompts, switches, theme tokens (light and dark) and theme file", async () => {
    const res = await fetch(`${served.url}/desk`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<title>Ops desk</title>");
    expect(html).toContain('<h1>Ops desk</h1><p class="subtitle">Night shift</p>');
    expect(html).toContain('<span class="brand-icon" aria-hidden="true">🛰️</span>');
    expect(html).toContain('<p class="welcome-text">Ask about the fleet.</p>');
    expect(html).toContain('placeholder="Type a question for ops"');
    expect(html).toContain('<p class="footer">Answers may be wrong.</p>');
    expect(html).toMatch(/>Status of the fleet<\/button>.*>Open incidents<\/button>/s);
    expect(html).toMatch(/"showReasoning":false,"showToolCalls":false/);
    expect(html).toMatch(/--accent:\s*#0a7f5a/);
    expect(html).toMatch(/--radius:\s*3px/);
    expect(html).toMatch(/--accent:\s*#4fd1a5/);
    expect(html).toContain(".footer { letter-spacing: 0.07em; }");
  });

  it("the page's API answers only its apiKeyEnvVar key; its turns go to database.path", async () => {
    const invoke = (headers: Record<string, string>) =>
      fetch(`${served.url}/desk/api/invoke`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ input: "fleet?", conversationId: "c1" }),
        signal: AbortSignal.timeout(15_000),
      });
    expect((await invoke({})).status).toBe(401);
    expect((await invoke({ "x-api-key": "nope" })).status).toBe(401);
    const ok = await invoke({ "x-api-key": PAGE_KEY });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { output: string }).output).toContain("fleet?");
    expect(existsSync(join(dir, "data/desk.db"))).toBe(true);
  });
});
