import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

const AGENT_ROUTE = { "gateways/agent.yaml": "exposes: agent\npath: /agent\n" };
const agent = (body: string) => `export default { kind: "agent", name: "bot", ${body} };\n`;

describe("agentsvc check catches what start would fail on", () => {
  it("names an unknown key of an agent definition with the nearest known key", () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "agents/bot.mjs": agent(`model: { provider: "demo" }, instructons: "be brief"`),
    });
    const r = runBin(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /agents\/bot\.mjs: instructons: unknown key in an agent definition .*did you mean "instructions"\?/,
    );
  });

  it("reports a YAML alias used before its anchor as invalid YAML, and start fails the same way (check crashed with a stack trace)", () => {
    const dir = writeFiles(tempDir(), {
      "gateways/agent.yaml": "exposes: agent\npath: *route\n",
      "agents/bot.mjs": agent(`model: { provider: "demo" }`),
    });
    for (const verb of [
      ["check", dir],
      ["start", dir, "--port", "0"],
    ]) {
      const r = runBin(verb);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "error gateways/agent.yaml: must be valid YAML (got Unresolved alias (the anchor must be set before the alias): route)",
      );
      expect(r.stderr).not.toMatch(/ReferenceError|\n\s+at /);
    }
  });

  it("names an unknown key of a model spec", () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "agents/bot.mjs": agent(`model: { provider: "openai", model: "gpt-4o-mini", apiKeyEnv: "KEY" }`),
    });
    const r = runBin(["check", dir], { KEY: "x" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /agents\/bot\.mjs: model\.apiKeyEnv: unknown key in an openai model .*did you mean "apiKeyEnvVar"\?/,
    );
  });

  it("points at the line and column (from 1) of a syntax error in an agent file and in a tool-server file", () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "agents/bot.ts": `const x: number = 1;\nexport default { kind: "agent" name: "bot", model: { provider: "demo" } };\n`,
      "mcp/tools.mjs": `export default {\n  name: "tools",\n  tools: [ 1 2 ],\n};\n`,
    });
    const r = runBin(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error agents\/bot\.ts:2:32: syntax error: Unexpected token, expected ","/);
    expect(r.stderr).toMatch(/error mcp\/tools\.mjs:3:14: syntax error: /);
  });

  it("warns when a model's API-key variable is unset; start then fails before creating anything on disk", () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "gateways/web.yaml": "exposes: webui\npath: /chat\n",
      "agents/bot.mjs": agent(`model: { provider: "anthropic", model: "claude-sonnet-4-5" }`),
    });
    const checked = runBin(["check", dir], { ANTHROPIC_API_KEY: "" });
    expect(checked.code).toBe(0);
    expect(checked.stderr).toMatch(
      /warning agents\/bot\.mjs: model\.apiKeyEnvVar: environment variable ANTHROPIC_API_KEY is not set: `agentsvc start` fails until it holds/,
    );
    expect(runBin(["check", dir], { ANTHROPIC_API_KEY: "sk-test" }).stderr).toBe("");

    const started = runBin(["start", dir, "--port", "0"], { ANTHROPIC_API_KEY: "" });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      "cannot start: agents/bot.mjs: model.apiKeyEnvVar: environment variable ANTHROPIC_API_KEY is not set",
    );
    // No store file, no data/ folder, no built page: nothing to clean up after a missing secret.
    expect(existsSync(join(dir, "data"))).toBe(false);
    expect(existsSync(join(dir, ".agentsvc"))).toBe(false);
  });

  it("warns when a postgres datasource's URL variable is unset; start then fails naming it, before creating anything on disk", () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "agents/bot.mjs": agent(`model: { provider: "demo" }`),
      "agentsvc.config.yaml": "datasources:\n  main:\n    type: postgres\n    urlEnvVar: AGENTSVC_PG_URL\n",
    });
    const checked = runBin(["check", dir], { AGENTSVC_PG_URL: "" });
    expect(checked.code).toBe(0);
    expect(checked.stderr).toMatch(
      /warning agentsvc\.config\.yaml: datasources\.main\.urlEnvVar: environment variable AGENTSVC_PG_URL is not set: `agentsvc start` fails until it holds the connection string of the postgres datasource "main"/,
    );
    expect(runBin(["check", dir], { AGENTSVC_PG_URL: "postgres://app@db/x" }).stderr).toBe("");

    const started = runBin(["start", dir, "--port", "0"], { AGENTSVC_PG_URL: "" });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      'cannot start: agentsvc.config.yaml: datasources.main.urlEnvVar: environment variable AGENTSVC_PG_URL is not set (the postgres datasource "main" needs its connection string there',
    );
    expect(existsSync(join(dir, "data"))).toBe(false);
    expect(existsSync(join(dir, ".agentsvc"))).toBe(false);
  });
  it("refuses to start an agent route whose apiKeyEnvVar variable is empty or unset, instead of serving it open", () => {
    const dir = writeFiles(tempDir(), {
      "gateways/agent.yaml": "exposes: agent\npath: /agent\napiKeyEnvVar: AGENT_KEY\n",
      "agents/bot.mjs": agent(`model: { provider: "demo" }`),
    });
    for (const env of [{ AGENT_KEY: "" }, {}] as Record<string, string>[]) {
      const started = runBin(["start", dir, "--port", "0"], env);
      expect(started.code).toBe(1);
      expect(started.stderr).toContain(
        "cannot start: gateways/agent.yaml: apiKeyEnvVar: expected environment variable AGENT_KEY to hold the API key, but it is unset or empty",
      );
    }
    expect(existsSync(join(dir, "data"))).toBe(false);
  });

  it("warns when the metrics block's key variable is unset; start then refuses to serve /metrics open", () => {
    const dir = writeFiles(tempDir(), {
      ...AGENT_ROUTE,
      "agents/bot.mjs": agent(`model: { provider: "demo" }`),
      "agentsvc.config.yaml": "metrics:\n  path: /metrics\n  apiKeyEnvVar: METRICS_KEY\n",
    });
    const checked = runBin(["check", dir], { METRICS_KEY: "" });
    expect(checked.code).toBe(0);
    expect(checked.stderr).toMatch(
      /warning agentsvc\.config\.yaml: metrics\.apiKeyEnvVar: environment variable METRICS_KEY is not set: `agentsvc start` refuses to serve metrics without its key/,
    );
    expect(runBin(["check", dir], { METRICS_KEY: "scrape" }).stderr).toBe("");

    const started = runBin(["start", dir, "--port", "0"], { METRICS_KEY: "" });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      "cannot start: agentsvc.config.yaml: metrics.apiKeyEnvVar: expected environment variable METRICS_KEY to hold the API key, but it is unset or empty",
    );
    expect(existsSync(join(dir, "data"))).toBe(false);
  });
});
