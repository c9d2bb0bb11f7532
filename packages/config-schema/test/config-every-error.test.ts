// `agentsvc check` promises every error at once: an error in one key of agentsvc.config.* hides
// neither another key's error nor the checks that read the config afterwards (the store's
// datasource, sslCaFile, rootAgent, budgets), and a check that needs a key with errors is skipped
// rather than reported a second time, wrongly.
import { describe, expect, it } from "vitest";
import { type BuildError, formatIssue } from "../src/index.js";
import { BOT_AGENT, expectError, load, loadErrors } from "./helpers.js";

const CONFIG = "agentsvc.config.yaml";
const at = (errors: BuildError[], file: string, path: string) =>
  errors.filter((e) => e.file === file && e.path === path).map(formatIssue);

describe("agentsvc.config with errors in several keys", () => {
  it("reports an error in each of two keys, and the store and sslCaFile checks on the valid ones", async () => {
    const errors = await loadErrors({
      [CONFIG]: [
        "port: 99999",
        "metrics: { path: /health }",
        "store: nowhere",
        "datasources:",
        "  main: { type: postgres, urlEnvVar: DATABASE_URL, ssl: require, sslCaFile: ./ca.pem }",
        "",
      ].join("\n"),
    });
    expectError(errors, CONFIG, "port", /must be at most 65535/);
    expectError(errors, CONFIG, "metrics.path", /is taken by the health probes/);
    expectError(
      errors,
      CONFIG,
      "store",
      /must name a declared datasource \(agentsvc, main\) \(got nowhere\)/,
    );
    expectError(errors, CONFIG, "datasources.main.sslCaFile", /is only used with ssl: verify-full/);
    expect(errors).toHaveLength(4);
  });

  it("still refuses an unknown top-level key beside a key with an error", async () => {
    const errors = await loadErrors({ [CONFIG]: "prot: 3000\nrootAgent: ''\n" });
    expectError(errors, CONFIG, "prot", /unknown key in agentsvc\.config .*did you mean "port"/);
    expectError(errors, CONFIG, "rootAgent", /must not be empty/);
    expect(errors).toHaveLength(2);
  });

  it("a config that is not a mapping is one error, not one per key", async () => {
    const errors = await loadErrors({ [CONFIG]: "- port\n- 3000\n" });
    expect(errors.map(formatIssue)).toEqual([
      "agentsvc.config.yaml: must be a mapping (agentsvc.config) (got a list of 2)",
    ]);
  });

  it("a rootAgent with an error is not reported again as missing when agents/ holds several", async () => {
    const errors = await loadErrors({
      [CONFIG]: "rootAgent: 7\nport: -1\n",
      "agents/bot.ts": BOT_AGENT,
      "agents/helper.ts": BOT_AGENT.replace('"bot"', '"helper"'),
    });
    expect(at(errors, CONFIG, "rootAgent")).toEqual([
      "agentsvc.config.yaml: rootAgent: must be a string (file name of the root agent under agents/) (got 7)",
    ]);
    expectError(errors, CONFIG, "port", /must be at least 0/);
  });

  it("a datasource with errors is not called undeclared by store or a webui entry, and hides no other datasource's checks", async () => {
    const errors = await loadErrors({
      [CONFIG]: [
        "store: chat",
        "datasources:",
        "  chat: { type: mysql }",
        "  main: { type: postgres, urlEnvVar: DATABASE_URL, sslCaFile: ./ca.pem }",
        "",
      ].join("\n"),
      "gateways/web.yaml": "exposes: webui\npath: /chat\ndatabase:\n  datasource: chat\n",
    });
    expectError(errors, CONFIG, "datasources.chat.type", /must be one of sqlite, postgres \(got "mysql"\)/);
    expectError(
      errors,
      CONFIG,
      "datasources.main.sslCaFile",
      /is only used with ssl: verify-full.*\(got ssl unset\)/,
    );
    expect(at(errors, CONFIG, "store")).toEqual([]);
    expect(at(errors, "gateways/web.yaml", "database.datasource")).toEqual([]);
    expect(errors).toHaveLength(2);
  });

  it("budgets are still checked when prices has an error, without claiming prices is empty", async () => {
    const r = await load({
      [CONFIG]: [
        "prices:",
        '  "openai/gpt-4o": { input: -1, output: 1 }',
        "budgets:",
        "  service: { day: { cost: 5 } }",
        "  agents:",
        "    ghost: { day: { tokens: 1000 } }",
        "",
      ].join("\n"),
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expectError(r.errors, CONFIG, "prices.openai/gpt-4o.input", /must be 0 or more/);
    expect(r.warnings.map(formatIssue)).toEqual([
      "agentsvc.config.yaml: budgets.agents.ghost: names no agent (bot): it limits nothing",
    ]);
  });
});
