// `start` reads gateway files with js-yaml first (config-schema yaml-data.ts, #45), block and flow
// style alike, and a file with a syntax error still fails the start with the yaml package's message
// and line. Through the built bin.
import { describe, expect, it } from "vitest";
import { runBin, serveBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

const BOT = 'export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n';

async function invokeAt(url: string, path: string): Promise<number> {
  const res = await fetch(`${url}${path}/invoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "hello" }),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("agentsvc start and its gateway files' YAML", () => {
  it("serves routes from a block-style file and from a flow-style one", async () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT,
      "gateways/plain.yaml": "# plain\nexposes: agent\npath: /plain # the route\n",
      "gateways/flow.yaml": "{exposes: agent, path: /flow}\n",
    });
    const served = await serveBin(["start", dir, "--port", "0"]);
    try {
      expect(await invokeAt(served.url, "/plain")).toBe(200);
      expect(await invokeAt(served.url, "/flow")).toBe(200);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it("fails on a YAML syntax error with the file, the line and the yaml package's message", () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT,
      "gateways/agent.yaml": "exposes: agent\npath: /a\npath: /b\n",
    });
    const r = runBin(["start", dir, "--port", "0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "error gateways/agent.yaml: line 3: must be valid YAML (got Map keys must be unique",
    );
    expect(r.stdout).not.toContain("listening");
  });

  it("fails on a plain file's invalid declaration with its key path", () => {
    const dir = writeFiles(tempDir(), {
      "agents/bot.mjs": BOT,
      "gateways/agent.yaml": "exposes: agent\npath: relative\n",
    });
    const r = runBin(["start", dir, "--port", "0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error gateways\/agent\.yaml: path: /);
  });
});
