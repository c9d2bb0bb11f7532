import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildProject } from "../src/index.js";
import { BOT_AGENT, BROKEN, linkAdapters, run, tempDir, writeFiles } from "./helpers.js";

/** A project using every kind of *EnvVar key there is. */
const ENV_FIXTURE: Record<string, string> = {
  "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "openai", model: "gpt-4o-mini", apiKeyEnvVar: "OPENAI_API_KEY" },
  tools: [{ kind: "tool", name: "echo", description: "Echo", input: { type: "json-schema", schema: {} }, execute: (i) => i }],
  toolServers: [{ url: "https://mcp.example.test/mcp", apiKeyEnvVar: "REMOTE_MCP_KEY" }] };\n`,
  "gateways/agent.yaml": "exposes: agent\npath: /agent\napiKeyEnvVar: AGENT_API_KEY\n",
  "gateways/web.yaml":
    "exposes: webui\npath: /chat\napiKeyEnvVar: WEB_API_KEY\nusers:\n  - username: ada\n    passwordEnvVar: ADA_PASSWORD\ntheme:\n  accent: 0a84ff\n",
  "gateways/hook.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
  "gateways/telegram.yaml": "type: telegram\nbotTokenEnvVar: TG_TOKEN\n",
  "gateways/slack.yaml": "type: slack\nbotTokenEnvVar: SLACK_BOT\nappTokenEnvVar: SLACK_APP\n",
  "gateways/discord.yaml": "type: discord\nbotTokenEnvVar: DISCORD_TOKEN\n",
  "gateways/email.yaml":
    "type: email\nimapHostEnvVar: IMAP_HOST\nimapUsernameEnvVar: IMAP_USER\nimapPasswordEnvVar: IMAP_PASS\nfromAddressEnvVar: MAIL_FROM\n",
  "gateways/whatsapp.yaml":
    "type: whatsapp\naccessTokenEnvVar: WA_TOKEN\nphoneNumberIdEnvVar: WA_PHONE\nappSecretEnvVar: WA_SECRET\nverifyTokenEnvVar: WA_VERIFY\n",
  "gateways/teams.yaml": "type: teams\nappIdEnvVar: TEAMS_ID\nappPasswordEnvVar: TEAMS_PASS\n",
  "gateways/twilio.yaml":
    "type: twilio\naccountSidEnvVar: TW_SID\nauthTokenEnvVar: TW_TOKEN\nfromEnvVar: TW_FROM\n",
  "gateways/github.yaml":
    "type: github\ntokenEnvVar: GH_TOKEN\nwebhookSecretEnvVar: GH_SECRET\nbotNameEnvVar: GH_BOT\n",
  "gateways/signal.yaml": "type: signal\naccountEnvVar: SIGNAL_ACCOUNT\n",
};

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

function envVarNames(files: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const text of Object.values(files)) {
    for (const m of text.matchAll(/EnvVar:\s*"?([A-Z_][A-Z0-9_]*)/g)) names.add(m[1]!);
  }
  return [...names];
}

// Each variable's value before the test (undefined: unset), put back after it: the file's process
// may run another file next.
const touched = new Map<string, string | undefined>();
afterEach(() => {
  for (const [name, was] of touched) {
    if (was === undefined) delete process.env[name];
    else process.env[name] = was;
  }
  touched.clear();
});

describe("agentsvc build", () => {
  it("writes no environment value into any output file, only the variable names", async () => {
    const dir = writeFiles(tempDir(), ENV_FIXTURE);
    const names = envVarNames(ENV_FIXTURE);
    expect(names.length).toBeGreaterThanOrEqual(25);
    for (const name of names) {
      if (!touched.has(name)) touched.set(name, process.env[name]);
      process.env[name] = `MARKER-${name}-7f3a`;
    }
    // A step that serialises the whole project stands in for the page generator added later.
    const result = await buildProject(dir, {
      steps: [
        async (project, outDir) => {
          const { writeFileSync } = await import("node:fs");
          writeFileSync(join(outDir, "project.json"), JSON.stringify(project));
        },
      ],
    });
    expect(result.ok).toBe(true);
    const out = join(dir, ".agentsvc/build");
    const files = allFiles(out);
    expect(files.map((f) => f.slice(out.length + 1)).sort()).toEqual(["manifest.json", "project.json"]);
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      expect(text).not.toContain("MARKER-");
    }
    const manifest = readFileSync(join(out, "manifest.json"), "utf8");
    for (const name of names) expect(manifest).toContain(`"${name}"`);
  });

  it("writes the resolved project with defaults and theme tokens, without module code", async () => {
    // The discord entry's defaults are its adapter package's (installed, as start needs it).
    const dir = linkAdapters(writeFiles(tempDir(), ENV_FIXTURE));
    const r = await run(["build", dir]);
    expect(r.code).toBe(0);
    const m = JSON.parse(readFileSync(join(dir, ".agentsvc/build/manifest.json"), "utf8"));
    expect(m.manifestVersion).toBe(1);
    expect(m.rootAgent).toBe("bot");
    expect(m.agents[0]).toMatchObject({
      model: { provider: "openai", model: "gpt-4o-mini", apiKeyEnvVar: "OPENAI_API_KEY" },
      tools: ["echo"],
      gatewaySession: { policy: "queue", maxQueueDepth: 50 },
    });
    const web = m.exposures.find((e: { exposes: string }) => e.exposes === "webui");
    expect(web).toMatchObject({
      database: { datasource: "agentsvc", path: "./data/chat.db" },
      theme: { accent: "#0a84ff" },
      showReasoning: true,
    });
    expect(m.pushGateways.find((g: { type: string }) => g.type === "discord").intents).toBe(37377);
    const text = readFileSync(join(dir, ".agentsvc/build/manifest.json"), "utf8");
    expect(text).not.toContain("execute");
    expect(text).not.toContain(dir);
  });

  it("writes the same manifest for the same project", async () => {
    const dir = writeFiles(tempDir(), ENV_FIXTURE);
    await run(["build", dir]);
    const first = readFileSync(join(dir, ".agentsvc/build/manifest.json"), "utf8");
    await run(["build", dir]);
    expect(readFileSync(join(dir, ".agentsvc/build/manifest.json"), "utf8")).toBe(first);
  });

  it("writes to --out resolved against the working folder", async () => {
    const cwd = tempDir();
    const dir = writeFiles(tempDir(), { "agents/bot.ts": BOT_AGENT });
    const r = await run(["build", dir, "--out", "dist-out"], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("built dist-out\n");
    expect(existsSync(join(cwd, "dist-out/manifest.json"))).toBe(true);
    expect(existsSync(join(dir, ".agentsvc"))).toBe(false);
  });

  it("prints every error, writes nothing and exits 1 for an invalid project", async () => {
    const dir = writeFiles(tempDir(), BROKEN.files);
    const r = await run(["build", dir]);
    expect(r.code).toBe(1);
    for (const want of BROKEN.expected) expect(r.stderr).toContain(`error ${want}`);
    expect(existsSync(join(dir, ".agentsvc"))).toBe(false);
  });
});
