// `agentsvc check [dir]` (CLI reference): "print every error and warning with its file and key; exit
// 1 on any error". Through the built bin: errors in two config keys, the store check that reads the
// config after it, and a schedule naming a gateway entry with errors, all in one run.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

describe("agentsvc check prints every error of the config at once", () => {
  it("reports two config keys' errors, the store cross-check and a schedule on a broken entry, exit 1", () => {
    const dir = writeFiles(tempDir("agentsvc-check-every-"), {
      "agents/bot.mjs": BOT_AGENT,
      "agentsvc.config.yaml": "port: 99999\nmetrics: { path: /health }\nstore: nowhere\n",
      "gateways/tg.yaml": "type: telegram\n",
      "schedules/digest.yaml": "every: 1h\nprompt: p\nto: { gateway: tg, thread: 1 }\n",
    });
    linkPackages(dir, { "@agentsvc/gateway-telegram": "packages/gateway-telegram" });
    const r = runBin(["check", dir]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("error "));
    expect(lines).toEqual([
      "error agentsvc.config.yaml: port: must be at most 65535 (TCP port) (got 99999)",
      expect.stringMatching(/^error agentsvc\.config\.yaml: metrics\.path: is taken by the health probes/),
      "error agentsvc.config.yaml: store: must name a declared datasource (agentsvc) (got nowhere)",
      expect.stringMatching(/^error gateways\/tg\.yaml: botTokenEnvVar: is required/),
      expect.stringMatching(
        /^error schedules\/digest\.yaml: to\.gateway: names gateways\/tg\.yaml, which has errors of its own/,
      ),
    ]);
  });

  it("start refuses a project whose config has errors, as before, listing each of them", () => {
    const dir = writeFiles(tempDir("agentsvc-check-every-"), {
      "agents/bot.mjs": BOT_AGENT,
      "agentsvc.config.yaml": "port: 99999\nstore: nowhere\n",
    });
    const r = runBin(["start", dir, "--port", "0"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("error agentsvc.config.yaml: port: must be at most 65535");
    expect(r.stderr).toContain("error agentsvc.config.yaml: store: must name a declared datasource");
    expect(existsSync(join(dir, "data")), "data/ written").toBe(false);
  });
});
