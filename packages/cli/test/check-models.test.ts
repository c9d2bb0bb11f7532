import { realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { linkPackages, run, tempDir, writeFiles } from "./helpers.js";

// Provider packages as agent-core's tests have them installed (real folders, so their own
// dependencies resolve next to them).
const agentCore = resolve(import.meta.dirname, "../../agent-core");
const installed = (pkg: string) => realpathSync(join(agentCore, "node_modules", pkg));

const STRING_MODELS = `export default {
  kind: "agent",
  name: "bot",
  model: { model: "google/gemini-2.5-flash", fallbacks: ["mistral/mistral-large-latest", "openai/gpt-4o"] },
};
`;

describe("agentsvc check and the agent's model providers", () => {
  it("names every missing provider package (model and fallbacks) with the project's one install command, and exits 1", async () => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": STRING_MODELS });
    // A pnpm project: the command is pnpm's.
    writeFileSync(join(dir, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
    const r = await run(["check", dir]);
    expect(r.stderr).toMatch(
      /error agents\/bot\.mjs: model: provider "google" needs the package @ai-sdk\/google, which is not installed/,
    );
    expect(r.stderr).toMatch(
      /error agents\/bot\.mjs: model\.fallbacks\[0\]: provider "mistral" needs the package @ai-sdk\/mistral, which is not installed/,
    );
    // openai ships with agentsvc.
    expect(r.stderr).not.toContain("@ai-sdk/openai");
    expect(r.stderr).toContain("pnpm add @ai-sdk/google @ai-sdk/mistral");
    expect(r.code).toBe(1);
  });

  it("names them from the bundled agentsvc too (npm's command without a lockfile)", () => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": STRING_MODELS });
    const r = runBin(["check", dir]);
    expect(r.stderr).toMatch(
      /error agents\/bot\.mjs: model: provider "google" needs the package @ai-sdk\/google/,
    );
    expect(r.stderr).toContain("npm install @ai-sdk/google @ai-sdk/mistral");
    expect(r.code).toBe(1);
  });

  it("stops the bundled agentsvc start with the package and the install command, before its key", () => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": STRING_MODELS });
    const r = runBin(["start", dir, "--port", "0"]);
    expect(r.stderr).toContain(
      `agents/bot.mjs: model "google/gemini-2.5-flash" needs the package @ai-sdk/google, which is not installed in ${dir}. Install it: npm install @ai-sdk/google`,
    );
    expect(r.code).toBe(1);
  });

  it("passes once the provider packages are installed in the project", async () => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": STRING_MODELS });
    for (const pkg of ["@ai-sdk/google", "@ai-sdk/mistral"]) linkPackages(dir, { [pkg]: installed(pkg) });
    const r = await run(["check", dir]);
    expect(r.stderr).not.toContain("is not installed");
    expect(r.stdout).toMatch(/^ok root agent bot/);
    expect(r.code).toBe(0);
  });

  it("accepts an AI SDK LanguageModel instance built in the agent file, bare or with settings and fallbacks", async () => {
    for (const model of [
      `createOpenAI({ apiKey: "unused" }).chat("gpt-4o")`,
      `{ model: createOpenAI({ apiKey: "unused" }).chat("gpt-4o"), settings: { temperature: 0.2, maxRetries: 1 }, fallbacks: ["anthropic/claude-sonnet-4-5"] }`,
    ]) {
      const dir = writeFiles(tempDir(), {
        "agents/bot.mjs": `import { createOpenAI } from "@ai-sdk/openai";\nexport default { kind: "agent", name: "bot", model: ${model} };\n`,
      });
      linkPackages(dir, { "@ai-sdk/openai": installed("@ai-sdk/openai") });
      const r = await run(["check", dir], { env: { ANTHROPIC_API_KEY: "set" } });
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/^ok root agent bot/);
      expect(r.code).toBe(0);
    }
  });

  it("fails on a bad setting, naming the file and the key", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { model: "openai/gpt-4o", settings: { temperature: "hot" } } };\n`,
    });
    const r = await run(["check", dir]);
    expect(r.stderr).toContain(
      'agents/bot.mjs: model.settings.temperature: expected a number between 0 and 2 (got "hot")',
    );
    expect(r.code).toBe(1);
  });
});
