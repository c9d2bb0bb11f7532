// `agentsvc check [dir]` (CLI reference): "print every error and warning with its file and key; exit
// 1 on any error". Through the built bin: errors in two config keys, the store check that reads the
// config after it, and a schedule naming a gateway entry with errors, all in one run; an entry of an
// adapter package that is not installed with its other keys' errors, and tool-server files with
// errors (one that does not load, two declaring one name) with the references to them; a schedule's
// platform keys beside the errors of the e-mail entry it names, installed or not.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

/**
 * `agentsvc check` on a project whose schedule `digest` sends to the e-mail entry `mail` (its keys
 * beside `type: email`), `to` holding `toKeys` too, with `packages` installed: exit 1, the
 * schedule's error lines.
 */
function checkMailSchedule(entryKeys: string, toKeys: string, packages: Record<string, string>) {
  const dir = writeFiles(tempDir("agentsvc-check-every-"), {
    "agents/bot.mjs": BOT_AGENT,
    "gateways/mail.yaml": `type: email\n${entryKeys}`,
    "schedules/digest.yaml": `every: 1h\nprompt: p\nto: { gateway: mail, thread: a@b.c, ${toKeys} }\n`,
  });
  linkPackages(dir, packages);
  const r = runBin(["check", dir]);
  expect(r.code, r.stderr).toBe(1);
  return { stderr: r.stderr, lines: r.stderr.split("\n").filter((l) => l.startsWith("error schedules/")) };
}

const NAMES_BROKEN_MAIL = expect.stringMatching(
  /^error schedules\/digest\.yaml: to\.gateway: names gateways\/mail\.yaml, which has errors of its own/,
);

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

  it("reports an uninstalled adapter type beside the entry's other keys, and tool servers with errors beside their references", () => {
    const dir = writeFiles(tempDir("agentsvc-check-every-"), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, toolServers: ["tools", "my-tools"] };\n`,
      "mcp/extra.mjs": `export default { name: "shared", tools: "none" };\n`,
      "mcp/more.mjs": `export default { name: "shared", tools: [] };\n`,
      "mcp/tools.mjs": `export default { name: "tools", tools: [ };\n`,
      "gateways/line.yaml": 'type: "@acme/agentsvc-gateway-line"\napprovers: nobody\n',
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: tools\n",
    });
    const r = runBin(["check", dir]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("error "));
    expect(lines).toEqual([
      expect.stringMatching(/^error mcp\/extra\.mjs: tools: must be a list of tools/),
      expect.stringMatching(
        /^error mcp\/more\.mjs: name: must be unique across tool servers .*also declared in mcp\/extra\.mjs/,
      ),
      expect.stringMatching(/^error mcp\/tools\.mjs:1:\d+: syntax error/),
      expect.stringMatching(
        /^error agents\/bot\.mjs: toolServers\[0\]: names mcp\/tools\.mjs by its file name, but that file did not load \(reported for that file\)/,
      ),
      expect.stringMatching(
        /^error agents\/bot\.mjs: toolServers\[1\]: .*\(declared: none; mcp\/tools\.mjs did not load: its name is unknown\) \(got "my-tools"\)$/,
      ),
      expect.stringMatching(
        /^error gateways\/line\.yaml: type: unknown type \(the package @acme\/agentsvc-gateway-line is not installed\)/,
      ),
      expect.stringMatching(/^error gateways\/line\.yaml: approvers: must be a list of platform user ids/),
      expect.stringMatching(
        /^error gateways\/m\.yaml: target: names mcp\/tools\.mjs by its file name, but that file did not load/,
      ),
    ]);
  });

  it("reports a schedule's platform keys beside the errors of the installed e-mail entry it names", () => {
    const r = checkMailSchedule("imapHostEnvVar: H\n", "subject: 5, templateName: weekly", {
      "@agentsvc/gateway-email": "packages/gateway-email",
      "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp",
    });
    expect(r.lines).toEqual([
      NAMES_BROKEN_MAIL,
      expect.stringMatching(/^error schedules\/digest\.yaml: to\.templateName: is for whatsapp targets only/),
      expect.stringMatching(/^error schedules\/digest\.yaml: to\.subject: must be a string \(the subject/),
    ]);
    expect(r.stderr).toMatch(/^error gateways\/mail\.yaml: /m);
  });

  it("reports another platform's key on a schedule naming a broken entry whose package is not installed", () => {
    const r = checkMailSchedule("approvers: nobody\n", "templateName: weekly", {
      "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp",
    });
    expect(r.lines).toEqual([
      NAMES_BROKEN_MAIL,
      "error schedules/digest.yaml: to.templateName: is for whatsapp targets only (this schedule sends to email)",
    ]);
    expect(r.stderr).toMatch(/^error gateways\/mail\.yaml: approvers: /m);
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
