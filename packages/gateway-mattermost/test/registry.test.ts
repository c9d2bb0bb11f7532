// The entry the README documents validates through the open registry: `type` names this package,
// found in the project's node_modules, and its schema checks the platform keys with file and key.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { formatIssue, loadProject } from "@agentsvc/config-schema";
import { describe, expect, it } from "vitest";

function project(entry: string): string {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-mattermost-"));
  mkdirSync(join(dir, "node_modules/@agentsvc"), { recursive: true });
  symlinkSync(resolve(import.meta.dirname, ".."), join(dir, "node_modules/@agentsvc/gateway-mattermost"));
  mkdirSync(join(dir, "agents"));
  mkdirSync(join(dir, "gateways"));
  writeFileSync(
    join(dir, "agents/bot.ts"),
    `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
  );
  writeFileSync(join(dir, "gateways/team.yaml"), entry);
  return dir;
}

describe("a mattermost entry", () => {
  it("named by its built-in type mattermost validates", async () => {
    const r = await loadProject(
      project("type: mattermost\ntokenEnvVar: MATTERMOST_TOKEN\nserverUrl: https://chat.example.com\n"),
    );
    expect(r.ok ? [] : r.errors.map(formatIssue)).toEqual([]);
    expect(r.ok && r.project.pushGateways[0]).toMatchObject({
      serverUrl: "https://chat.example.com",
      tokenEnvVar: "MATTERMOST_TOKEN",
    });
  });

  it("without its server URL is refused naming the file and the key", async () => {
    const r = await loadProject(project("type: mattermost\ntokenEnvVar: MATTERMOST_TOKEN\n"));
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.errors.map(formatIssue).join("\n")).toMatch(/gateways\/team\.yaml.*serverUrl/);
  });

  it("allowChannelMentions is a boolean the entry keeps; another value is refused naming the key", async () => {
    const base = "type: mattermost\ntokenEnvVar: MATTERMOST_TOKEN\nserverUrl: https://chat.example.com\n";
    const r = await loadProject(project(`${base}allowChannelMentions: true\n`));
    expect(r.ok && r.project.pushGateways[0]).toMatchObject({ allowChannelMentions: true });
    const refused = await loadProject(project(`${base}allowChannelMentions: "yes"\n`));
    expect(refused.ok ? "" : refused.errors.map(formatIssue).join("\n")).toMatch(
      /gateways\/team\.yaml.*allowChannelMentions.*true or false/,
    );
  });
});
