// An adapter package that declares the light `./adapter` entry is read from it by the bundled
// `check` and `doctor`, which therefore never import its gateway; `start` imports the main entry for
// createGateway (docs/building-an-adapter.md, section 2). The main entry here throws when imported.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

const PKG = "agentsvc-gateway-lantern";

function installLantern(dir: string): void {
  const root = join(dir, "node_modules", PKG);
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({
      name: PKG,
      type: "module",
      exports: { ".": "./index.js", "./adapter": "./adapter.js" },
    }),
  );
  writeFileSync(join(root, "index.js"), 'throw new Error("the gateway module of lantern was imported");\n');
  // Plain JavaScript, no dependency: a valibot-compatible optional schema by hand.
  writeFileSync(
    join(root, "adapter.js"),
    `export const adapter = { type: "lantern", kind: "connection", account: "bot", secrets: [] };
const optional = { kind: "schema", type: "unknown", expects: "unknown", async: false, "~run": (d) => ({ ...d, typed: true }) };
export const entrySchema = { room: optional };
export async function doctor() {
  return [{ check: "lantern light", status: "ok", detail: "read from the light entry" }];
}
`,
  );
}

describe("the light adapter entry through the bundled bin", () => {
  it("check and doctor read it without importing the gateway; start imports the main entry", () => {
    const dir = writeFiles(tempDir("agentsvc-light-entry-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/lantern.yaml": `type: ${PKG}\nroom: hall\n`,
    });
    installLantern(dir);
    const check = runBin(["check", dir]);
    expect(check.stderr).toBe("");
    expect(check.stdout).toMatch(/^ok root agent bot, .*1 gateway/);
    const doctor = runBin(["doctor", dir]);
    expect(doctor.stdout).toMatch(/ok\s+lantern light\s+read from the light entry/);
    expect(`${doctor.stdout}${doctor.stderr}`).not.toContain("gateway module of lantern was imported");
    const start = runBin(["start", dir, "--port", "0"]);
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain("the gateway module of lantern was imported");
  });
});
