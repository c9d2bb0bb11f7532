// An agent's remote tool server (`toolServers: [{ url, apiKeyEnvVar }]`) through two processes of
// the built bin: one serves an MCP exposure behind `apiKeyEnvVar`, the other's agent uses its tool
// with the key from its own environment; without the key the second cannot start.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBinAsync, type Served, serveBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

const KEY = "remote-tools-key-1701";

describe("agentsvc start: an agent using a remote MCP tool server with an API key", () => {
  let tools: Served;
  let user: Served | undefined;
  let userDir: string;

  beforeAll(async () => {
    const toolsDir = writeFiles(tempDir("agentsvc-remote-tools-"), {
      "agents/bot.mjs": BOT_AGENT,
      "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: maths\napiKeyEnvVar: TOOLS_KEY\n",
      "mcp/maths.mjs": [
        'import { defineToolServer } from "@agentsvc/mcp";',
        "export default defineToolServer({",
        '  name: "maths",',
        "  tools: [{",
        '    kind: "tool",',
        '    name: "multiply",',
        '    description: "Multiplies two numbers.",',
        '    input: { type: "json-schema", schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },',
        "    execute: ({ a, b }) => ({ product: a * b }),",
        "  }],",
        "});",
        "",
      ].join("\n"),
    });
    linkPackages(toolsDir, {
      "@agentsvc/agent-core": "packages/agent-core",
      "@agentsvc/mcp": "packages/mcp",
    });
    tools = await serveBin(["start", toolsDir, "--port", "0"], { TOOLS_KEY: KEY });
    userDir = writeFiles(tempDir("agentsvc-remote-user-"), {
      "agents/bot.mjs": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, toolServers: [{ url: "${tools.url}/mcp", apiKeyEnvVar: "REMOTE_TOOLS_KEY" }] };\n`,
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
    });
  }, 60_000);
  afterAll(async () => {
    await user?.stop();
    await tools?.stop();
  });

  it("calls the remote tool with the key from its environment", async () => {
    user = await serveBin(["start", userDir, "--port", "0"], { REMOTE_TOOLS_KEY: KEY });
    const res = await fetch(`${user.url}/agent/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "multiply 6 and 7" }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { output: string };
    expect(body.output).toMatch(/^The tool multiply returned: .*product\W+42/);
  });

  it("with another key the remote server refuses it and start fails saying so", async () => {
    const r = await runBinAsync(["start", userDir, "--port", "0"], { REMOTE_TOOLS_KEY: "wrong" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot start: agent "bot": toolServers\[0\]: could not connect to the MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp: HTTP 401: Unauthorized/,
    );
  });
});
