// A reference to a tool server is checked whenever it can be: an agent whose other keys have
// errors still has its toolServers names checked, and a name a tool server with errors declares is
// not reported as undeclared (that file's own errors are): one that does not load is named by its
// file's base name, and a reference taking it so is told that file did not load. A name is checked
// unique whenever it can be read.
import { describe, expect, it } from "vitest";
import { formatIssue } from "../src/index.js";
import { expectError, loadErrors } from "./helpers.js";

describe("references to a tool server with errors", () => {
  it("an agent's toolServers and an mcp exposure's target naming it are not called undeclared", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": `export default { name: "my-tools", tools: "none" };\n`,
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, toolServers: ["my-tools"] };\n`,
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: my-tools\n",
    });
    expect(errors.map(formatIssue)).toEqual([
      expect.stringMatching(/^mcp\/tools\.ts: tools: must be a list of tools/),
    ]);
  });

  it("an agent with an error in another key still has its toolServers names checked", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": `export default { name: "my-tools", tools: [] };\n`,
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, gatewaySession: { policy: "sometimes" }, toolServers: ["my-tools", "nope"] };\n`,
    });
    expectError(errors, "agents/bot.ts", "gatewaySession.policy", /./);
    expectError(errors, "agents/bot.ts", "toolServers[1]", /declared: my-tools\) \(got "nope"\)/);
    expect(errors).toHaveLength(2);
  });

  it("an agent whose toolServers list has an error of its own is not checked twice", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, toolServers: [""] };\n`,
    });
    expect(errors.filter((e) => e.path.startsWith("toolServers"))).toHaveLength(1);
  });

  it("a reference taking a tool-server file that does not load by its file name is told that file did not load", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": `export default { name: "tools", tools: [ };\n`,
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, toolServers: ["tools", "my-tools"] };\n`,
      "gateways/m.yaml": "exposes: mcp\npath: /mcp\ntarget: tools\n",
    });
    expect(errors.map(formatIssue)).toEqual([
      expect.stringMatching(/^mcp\/tools\.ts:1:\d+: syntax error/),
      'agents/bot.ts: toolServers[0]: names mcp/tools.ts by its file name, but that file did not load (reported for that file): the name it declares is checked once it loads (got "tools")',
      'agents/bot.ts: toolServers[1]: must name a tool server declared under mcp/ (declared: none; mcp/tools.ts did not load: its name is unknown) (got "my-tools")',
      'gateways/m.yaml: target: names mcp/tools.ts by its file name, but that file did not load (reported for that file): the name it declares is checked once it loads (got "tools")',
    ]);
  });

  it("a reference taking a tool-server file whose name has errors by its file name is told so", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": `export default { name: 5, tools: [] };\n`,
      "mcp/more.ts": `export default { name: "", tools: [] };\n`,
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, toolServers: ["tools", "nope"] };\n`,
    });
    expectError(errors, "mcp/tools.ts", "name", /./);
    expectError(
      errors,
      "agents/bot.ts",
      "toolServers[0]",
      /names mcp\/tools\.ts by its file name, but that file has errors in its name \(reported for that file\)/,
    );
    expectError(
      errors,
      "agents/bot.ts",
      "toolServers[1]",
      /\(declared: none; mcp\/more\.ts has errors in its name, mcp\/tools\.ts has errors in its name: their names are unknown\)/,
    );
  });

  it("two tool servers declaring one name are told so when one of them has errors in other keys", async () => {
    const errors = await loadErrors({
      "mcp/a.ts": `export default { name: "shared", tools: "none" };\n`,
      "mcp/b.ts": `export default { name: "shared", tools: [] };\n`,
      "mcp/c.ts": `export default { name: " shared", tools: 1 };\n`,
    });
    expectError(errors, "mcp/a.ts", "tools", /must be a list of tools/);
    expectError(
      errors,
      "mcp/b.ts",
      "name",
      /must be unique across tool servers \(got "shared", also declared in mcp\/a\.ts\)/,
    );
    expectError(errors, "mcp/c.ts", "name", /must be unique across tool servers/);
    expect(errors).toHaveLength(4);
  });
});
