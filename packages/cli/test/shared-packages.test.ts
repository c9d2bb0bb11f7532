// The bundled command holds agent-core and mcp; a project's files import them by name. The bin
// hands such an import the bundle's copy when it resolves to the package the command depends on
// (bin/shared-packages.js), so there is one copy of each in the process.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript shipped beside the bin, without types
import { redirectTo } from "../bin/shared-packages.js";
import { invoke, runBin, serveBin } from "./child.js";
import { linkPackages, repoRoot, tempDir, writeFiles } from "./helpers.js";

const bundle = join(repoRoot, "packages/cli/dist/bundle");

// Each file throws (check reports "must load as a module") unless its import is the bundle's copy.
const sameCopy = (name: string, entry: string, used: string) =>
  `import * as mine from "${name}";\n` +
  `const bundled = await import(${JSON.stringify(pathToFileURL(join(bundle, entry)).href)});\n` +
  `if (mine.${used} !== bundled.${used}) throw new Error("${name}: a second copy, not the command's");\n`;

describe("a project's imports of agent-core and mcp under the bundled agentsvc", () => {
  it("get the very modules the command runs, not a second copy (agent and tool server files)", () => {
    const dir = writeFiles(tempDir(), {
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: t\n",
      "agents/bot.ts": `${sameCopy("@agentsvc/agent-core", "agent-core.js", "AgentsvcError")}export default mine.defineAgent({ name: "bot", model: { provider: "demo" }, toolServers: ["t"] });\n`,
      "mcp/t.ts": `${sameCopy("@agentsvc/mcp", "mcp.js", "defineToolServer")}export default mine.defineToolServer({ name: "t", tools: [] });\n`,
    });
    linkPackages(dir, { "@agentsvc/agent-core": "packages/agent-core", "@agentsvc/mcp": "packages/mcp" });
    const r = runBin(["check", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("root agent bot");
  });

  it("get the command's copy in an agent file only jiti can load (an enum), through Node's require", () => {
    const bundled = JSON.stringify(join(bundle, "agent-core.js"));
    const dir = writeFiles(tempDir(), {
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "agents/bot.ts": [
        `import * as mine from "@agentsvc/agent-core";`,
        `enum Provider { Demo = "demo" }`,
        // Node's own require (jiti's would transform the bundle's file into another copy).
        `const nativeRequire = process.getBuiltinModule("node:module").createRequire(${bundled});`,
        `if (mine.AgentsvcError !== nativeRequire(${bundled}).AgentsvcError) throw new Error("a second copy");`,
        `export default mine.defineAgent({ name: "bot", model: { provider: Provider.Demo } });`,
      ].join("\n"),
    });
    linkPackages(dir, { "@agentsvc/agent-core": "packages/agent-core" });
    const r = runBin(["check", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("get the copy `start` runs as one script (bin/script-bundle.js), in agent and tool server files", async () => {
    // What the running script holds of each package (its facade's source), from the bin's module.
    const script = JSON.stringify(pathToFileURL(join(repoRoot, "packages/cli/bin/script-bundle.js")).href);
    const scriptCopy = (name: string, entry: string, used: string) =>
      `import * as mine from "${name}";\n` +
      `const { sharedModule } = await import(${script});\n` +
      `if (mine.${used} !== sharedModule("${entry}").${used}) throw new Error("${name}: not the script's copy");\n`;
    const dir = writeFiles(tempDir(), {
      "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
      "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: t\n",
      "agents/bot.ts": `${scriptCopy("@agentsvc/agent-core", "agent-core", "AgentsvcError")}export default mine.defineAgent({ name: "bot", model: { provider: "demo" }, toolServers: ["t"] });\n`,
      "mcp/t.ts": `${scriptCopy("@agentsvc/mcp", "mcp", "defineToolServer")}export default mine.defineToolServer({ name: "t", tools: [] });\n`,
    });
    linkPackages(dir, { "@agentsvc/agent-core": "packages/agent-core", "@agentsvc/mcp": "packages/mcp" });
    const served = await serveBin(["start", dir, "--port", "0"], {
      LOG_LEVEL: "warn",
      NODE_DEBUG: "agentsvc",
    });
    try {
      expect(served.output()).toMatch(/code cache \S+: (none|used|rejected)\n/);
      expect((await invoke(served.url)).status).toBe(200);
    } finally {
      await served.stop();
    }
  });

  it("serve an MCP route whose SDK mcp finds from its own folder, not the bundle's (initialize answers)", async () => {
    const dir = writeFiles(tempDir(), {
      "gateways/tools.yaml": "exposes: mcp\npath: /mcp\ntarget: t\n",
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "mcp/t.ts": `import { defineToolServer } from "@agentsvc/mcp";\nexport default defineToolServer({ name: "t", tools: [] });\n`,
    });
    linkPackages(dir, { "@agentsvc/agent-core": "packages/agent-core", "@agentsvc/mcp": "packages/mcp" });
    const served = await serveBin(["start", dir, "--port", "0"], { LOG_LEVEL: "warn" });
    try {
      const res = await fetch(`${served.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "test", version: "1" },
          },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('"serverInfo":{"name":"t"');
    } finally {
      await served.stop();
    }
  });

  it("redirects only an import that resolves to the command's own copy; another copy is kept", () => {
    const entries = new Map([["file:///cli/node_modules/core/index.js", "file:///cli/dist/bundle/core.js"]]);
    const hook = redirectTo(entries);
    const next = (url: string) => () => ({ url, format: "module" });
    expect(hook("core", {}, next("file:///cli/node_modules/core/index.js"))).toEqual({
      url: "file:///cli/dist/bundle/core.js",
      format: "module",
    });
    expect(hook("core", {}, next("file:///project/node_modules/core/index.js")).url).toBe(
      "file:///project/node_modules/core/index.js",
    );
  });

  it("redirects through module.register's asynchronous chain too (Node before registerHooks)", async () => {
    const hook = redirectTo(new Map([["file:///a.js", "file:///b.js"]]));
    await expect(hook("a", {}, async () => ({ url: "file:///a.js" }))).resolves.toEqual({
      url: "file:///b.js",
    });
  });
});
