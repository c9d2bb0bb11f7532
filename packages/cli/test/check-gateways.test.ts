import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, linkPackages, run, tempDir, writeFiles } from "./helpers.js";

// Three platform gateways, none of their packages installed and none of their secrets set: what a
// person has after copying entries from the READMEs.
const GATEWAYS = {
  "agents/bot.mjs": BOT_AGENT,
  "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG_TOKEN\n",
  "gateways/slack.yaml": "type: slack\nbotTokenEnvVar: SLACK_BOT\nappTokenEnvVar: SLACK_APP\n",
  "gateways/discord.yaml": "type: discord\nbotTokenEnvVar: DISCORD_TOKEN\n",
};

describe("agentsvc check sees what the gateways need before start does", () => {
  it("lists every missing adapter package at once with one install command, and exits 1", () => {
    const dir = writeFiles(tempDir(), GATEWAYS);
    const r = runBin(["check", dir]);
    expect(r.code).toBe(1);
    for (const [file, pkg] of [
      ["gateways/discord.yaml", "@agentsvc/gateway-discord"],
      ["gateways/slack.yaml", "@agentsvc/gateway-slack"],
      ["gateways/tg.yaml", "@agentsvc/gateway-telegram"],
    ]) {
      expect(r.stderr).toMatch(new RegExp(`error ${file}: type: .*${pkg}.* is not installed`));
    }
    expect(r.stderr).toContain(
      "npm install @agentsvc/gateway-discord @agentsvc/gateway-slack @agentsvc/gateway-telegram",
    );
  });

  it("names @agentsvc/session-core for a type: mock entry of a project without it, as for any adapter package, and passes once it is installed", () => {
    const dir = writeFiles(tempDir(), { "agents/bot.mjs": BOT_AGENT, "gateways/mock.yaml": "type: mock\n" });
    const r = runBin(["check", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error gateways\/mock\.yaml: type: .*@agentsvc\/session-core.* is not installed/,
    );
    expect(r.stderr).toContain("npm install @agentsvc/session-core\n");
    linkPackages(dir, { "@agentsvc/session-core": "packages/session-core" });
    const fixed = runBin(["check", dir]);
    expect(fixed.stderr).not.toContain("is not installed");
    expect(fixed.code).toBe(0);
  });

  it("start and dev name every missing adapter package too, with the same install command, and exit 1 without listening", () => {
    const dir = writeFiles(tempDir(), GATEWAYS);
    const command =
      "npm install @agentsvc/gateway-discord @agentsvc/gateway-slack @agentsvc/gateway-telegram";
    const start = runBin(["start", dir, "--port", "0"]);
    expect(start.code).toBe(1);
    for (const [file, pkg] of [
      ["gateways/discord.yaml", "@agentsvc/gateway-discord"],
      ["gateways/slack.yaml", "@agentsvc/gateway-slack"],
      ["gateways/tg.yaml", "@agentsvc/gateway-telegram"],
    ]) {
      expect(start.stderr).toMatch(new RegExp(`error ${file}: type: .*${pkg}.* is not installed`));
    }
    expect(start.stderr).toContain(`Install them: ${command}`);
    expect(start.stdout).not.toContain("listening");
  });

  it("exits 1 when one adapter package is missing though the others are installed (in-process, from source)", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/tg.yaml": GATEWAYS["gateways/tg.yaml"],
      "gateways/slack.yaml": GATEWAYS["gateways/slack.yaml"],
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    const r = await run(["check", dir]);
    expect(r.stderr).toMatch(
      /error gateways\/slack\.yaml: type: .*@agentsvc\/gateway-slack.* is not installed/,
    );
    expect(r.stderr).not.toContain("gateway-telegram");
    expect(r.stdout).not.toContain("ok");
    expect(r.code).toBe(1);
    // With it installed too, the same project passes.
    linkPackages(dir, { "@agentsvc/gateway-slack": "packages/gateway-slack" });
    const fixed = await run(["check", dir]);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^ok root agent bot/);
  });

  it("warns about every unset *EnvVar of the gateway entries", () => {
    const dir = writeFiles(tempDir(), GATEWAYS);
    const r = runBin(["check", dir], { SLACK_APP: "xapp-1" });
    for (const [file, key, name] of [
      ["gateways/tg.yaml", "botTokenEnvVar", "TG_TOKEN"],
      ["gateways/slack.yaml", "botTokenEnvVar", "SLACK_BOT"],
      ["gateways/discord.yaml", "botTokenEnvVar", "DISCORD_TOKEN"],
    ]) {
      expect(r.stderr).toContain(`warning ${file}: ${key}: environment variable ${name} is not set`);
    }
    expect(r.stderr).not.toContain("SLACK_APP is not set");
  });

  it("start refuses a gateway whose required secret is empty, naming the file and the variable", () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG_TOKEN\n",
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    expect(runBin(["check", dir]).code).toBe(0);
    const r = runBin(["start", dir, "--port", "0"], { TG_TOKEN: "" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error cannot start: gateways\/tg\.yaml: botTokenEnvVar: .*TG_TOKEN is not set/);
    // One clean line per problem, not a stack trace.
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
