import { describe, expect, it } from "vitest";
import { formatIssue } from "../src/index.js";
import { expectError, loadErrors, loadOk } from "./helpers.js";

const TOOLS = `export default { name: "my-tools", tools: [] };\n`;

describe("exposure entries", () => {
  it("accepts exposes agent, mcp and webui", async () => {
    const p = await loadOk({
      "mcp/tools.ts": TOOLS,
      "gateways/a.yaml": "exposes: agent\npath: /agent\n",
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: my-tools\n",
      "gateways/w.yaml": "exposes: webui\npath: /chat\n",
    });
    expect(p.exposures.map((e) => e.exposes).sort()).toEqual(["agent", "mcp", "webui"]);
    expect(p.exposures.find((e) => e.exposes === "agent")).toMatchObject({
      entryName: "a",
      file: "gateways/a.yaml",
    });
  });

  it("rejects an exposes value outside agent, mcp, webui", async () => {
    const errors = await loadErrors({ "gateways/g.yaml": "exposes: graphql\npath: /g\n" });
    expectError(errors, "gateways/g.yaml", "exposes", /must be one of agent, mcp, webui \(got "graphql"\)/);
  });

  it("requires path on every exposure", async () => {
    const errors = await loadErrors({ "gateways/a.yaml": "exposes: agent\n" });
    expectError(errors, "gateways/a.yaml", "path", /is required/);
  });

  it("requires path to be unique across exposure entries, naming the other file", async () => {
    const errors = await loadErrors({
      "gateways/a.yaml": "exposes: agent\npath: /x\n",
      "gateways/b.yaml": "exposes: webui\npath: /x/\n",
    });
    expectError(
      errors,
      "gateways/b.yaml",
      "path",
      /must be unique across exposure entries \(also used by gateways\/a\.yaml\)/,
    );
    expect(errors).toHaveLength(1);
  });

  it("reports a path clash even when one of the two entries has other errors", async () => {
    const errors = await loadErrors({
      "gateways/a.yaml": "exposes: agent\npath: /x\n",
      "gateways/b.yaml": "exposes: webui\npath: /x\nshowReasoning: maybe\n",
    });
    expectError(errors, "gateways/b.yaml", "path", /must be unique across exposure entries/);
    expectError(errors, "gateways/b.yaml", "showReasoning", /must be true or false/);
  });

  it("accepts distinct paths and drops a trailing slash", async () => {
    const p = await loadOk({
      "gateways/a.yaml": "exposes: agent\npath: /agent/\n",
      "gateways/b.yaml": "exposes: webui\npath: /chat\n",
    });
    expect(p.exposures.map((e) => e.path).sort()).toEqual(["/agent", "/chat"]);
  });

  it("rejects a path that does not start with / or sits under a gateway route", async () => {
    const errors = await loadErrors({
      "gateways/a.yaml": "exposes: agent\npath: agent\n",
      "gateways/b.yaml": "exposes: agent\npath: /webhooks/x\n",
    });
    expectError(errors, "gateways/a.yaml", "path", /must start with \//);
    expectError(
      errors,
      "gateways/b.yaml",
      "path",
      /must not be under \/gateways, \/webhooks, \/interactions/,
    );
  });

  it("accepts an mcp target equal to the declared name of a tool-server entry", async () => {
    const p = await loadOk({
      "mcp/tools.ts": TOOLS,
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: my-tools\n",
    });
    expect(p.exposures[0]).toMatchObject({ exposes: "mcp", target: "my-tools" });
    expect(p.toolServers).toMatchObject([{ name: "my-tools", file: "mcp/tools.ts" }]);
  });

  it("rejects an mcp target that matches no declared tool-server name (the file name does not count)", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": TOOLS,
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: tools\n",
    });
    expectError(errors, "gateways/m.yaml", "target", /declared: my-tools\) \(got "tools"\)/);
  });

  it("rejects an mcp exposure without target", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": TOOLS,
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\n",
    });
    expectError(errors, "gateways/m.yaml", "target", /is required/);
  });

  it("accepts apiKeyEnvVar on agent, mcp and webui exposures", async () => {
    const p = await loadOk({
      "mcp/tools.ts": TOOLS,
      "gateways/a.yaml": "exposes: agent\npath: /agent\napiKeyEnvVar: AGENT_KEY\n",
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: my-tools\napiKeyEnvVar: MCP_KEY\n",
      "gateways/w.yaml": "exposes: webui\npath: /chat\napiKeyEnvVar: WEB_KEY\n",
    });
    expect(p.exposures.map((e) => e.apiKeyEnvVar).sort()).toEqual(["AGENT_KEY", "MCP_KEY", "WEB_KEY"]);
  });

  it("rejects a secret pasted where an environment variable name belongs, without echoing it", async () => {
    const errors = await loadErrors({
      "gateways/a.yaml": "exposes: agent\npath: /agent\napiKeyEnvVar: sk-live-123abc\n",
    });
    const e = expectError(
      errors,
      "gateways/a.yaml",
      "apiKeyEnvVar",
      /must be the name of an environment variable/,
    );
    expect(formatIssue(e)).not.toContain("sk-live-123abc");
  });

  it("rejects an unknown key on an exposure, listing the known keys", async () => {
    const errors = await loadErrors({ "gateways/a.yaml": "exposes: agent\npath: /agent\ntitel: x\n" });
    expectError(
      errors,
      "gateways/a.yaml",
      "titel",
      /unknown key in an agent exposure \(known keys: exposes, path, apiKeyEnvVar\)/,
    );
  });

  it("rejects an entry with both exposes and type, and one with neither", async () => {
    const errors = await loadErrors({
      "gateways/both.yaml": "exposes: agent\ntype: http\npath: /a\n",
      "gateways/none.yaml": "path: /a\n",
    });
    expectError(errors, "gateways/both.yaml", "", /not both/);
    expectError(errors, "gateways/none.yaml", "", /must have an exposes key/);
  });

  it("loads TS and JSON gateway entries as well as YAML", async () => {
    const p = await loadOk({
      "gateways/a.ts": `export default { exposes: "agent", path: "/agent" };\n`,
      "gateways/b.json": `{ "exposes": "webui", "path": "/chat" }`,
      "gateways/c.mjs": `export const entry = { type: "cli" };\n`,
    });
    expect(p.exposures.map((e) => e.file).sort()).toEqual(["gateways/a.ts", "gateways/b.json"]);
    expect(p.channels).toMatchObject([{ type: "cli", entryName: "c" }]);
  });
});
