import { describe, expect, it } from "vitest";
import { loadProject } from "../src/index.js";
import { expectError, linkPackages, loadErrors, loadOk, writeProject } from "./helpers.js";

const agent = (name: string, extra = "") =>
  `export default { kind: "agent", name: ${JSON.stringify(name)}, model: { provider: "demo" }${extra} };\n`;

describe("gatewaySession on agents", () => {
  it("defaults policy to queue and maxQueueDepth to 50", async () => {
    const p = await loadOk({ "agents/bot.ts": agent("bot") });
    expect(p.rootAgent.gatewaySession).toEqual({ policy: "queue", maxQueueDepth: 50 });
  });

  it("accepts each of reject, queue, steer, interrupt with maxQueueDepth and busyReply", async () => {
    for (const policy of ["reject", "queue", "steer", "interrupt"]) {
      const p = await loadOk({
        "agents/bot.ts": agent(
          "bot",
          `, gatewaySession: { policy: "${policy}", maxQueueDepth: 3, busyReply: "busy" }`,
        ),
      });
      expect(p.rootAgent.gatewaySession).toEqual({ policy, maxQueueDepth: 3, busyReply: "busy" });
    }
  });

  it("fails the build for a policy outside the four allowed values", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": agent("bot", `, gatewaySession: { policy: "drop" }`),
    });
    expectError(
      errors,
      "agents/bot.ts",
      "gatewaySession.policy",
      /must be one of reject, queue, steer, interrupt \(got "drop"\)/,
    );
  });

  it("rejects a maxQueueDepth that is not an integer", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": agent("bot", `, gatewaySession: { maxQueueDepth: 2.5 }`),
    });
    expectError(errors, "agents/bot.ts", "gatewaySession.maxQueueDepth", /must be an integer/);
  });
});

describe("memory on agents", () => {
  it("accepts type, maxMessages, maxPromptTokens, summaryProvider, summaryModel, summaryThreshold", async () => {
    const memory = {
      type: "database",
      maxMessages: 40,
      maxPromptTokens: 8000,
      summaryProvider: "demo",
      summaryModel: "agentsvc-demo",
      summaryThreshold: 100,
    };
    const p = await loadOk({ "agents/bot.ts": agent("bot", `, memory: ${JSON.stringify(memory)}`) });
    expect(p.rootAgent.memory).toEqual(memory);
  });

  it("rejects an unknown memory key", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": agent("bot", `, memory: { type: "window", keepLast: 5 }`),
    });
    expectError(
      errors,
      "agents/bot.ts",
      "memory.keepLast",
      /unknown key in memory \(known keys: type, maxMessages/,
    );
  });

  it("rejects a maxPromptTokens that is not a positive integer", async () => {
    const errors = await loadErrors({ "agents/bot.ts": agent("bot", `, memory: { maxPromptTokens: 0 }`) });
    expectError(errors, "agents/bot.ts", "memory.maxPromptTokens", /tokens of history in a prompt/);
  });

  it("rejects a memory type other than window or database", async () => {
    const errors = await loadErrors({ "agents/bot.ts": agent("bot", `, memory: { type: "redis" }`) });
    expectError(errors, "agents/bot.ts", "memory.type", /must be window or database/);
  });
});

describe("root agent", () => {
  it("is the only agent when there is one", async () => {
    const p = await loadOk({ "agents/helper.ts": agent("Helper") });
    expect(p.rootAgent).toMatchObject({ name: "helper", declaredName: "Helper", file: "agents/helper.ts" });
  });

  it("is config.rootAgent when there are several", async () => {
    const p = await loadOk({
      "agents/a.ts": agent("a"),
      "agents/b.mjs": agent("b"),
      "agentsvc.config.yaml": "rootAgent: b\n",
    });
    expect(p.rootAgent.name).toBe("b");
    expect(p.agents.map((a) => a.name)).toEqual(["a", "b"]);
  });

  it("requires rootAgent when there are several agents", async () => {
    const errors = await loadErrors({ "agents/a.ts": agent("a"), "agents/b.ts": agent("b") });
    expectError(
      errors,
      "agentsvc.config",
      "rootAgent",
      /is required when agents\/ holds more than one agent \(got agents a, b\)/,
    );
  });

  it("rejects a rootAgent naming no agent file", async () => {
    const errors = await loadErrors({
      "agents/a.ts": agent("a"),
      "agentsvc.config.json": '{ "rootAgent": "zed" }',
    });
    expectError(
      errors,
      "agentsvc.config.json",
      "rootAgent",
      /must name an agent file under agents\/ \(found: a\) \(got "zed"\)/,
    );
  });

  it("rejects a project without agents", async () => {
    const errors = await loadErrors({}, { withAgent: false });
    expectError(errors, "agents/", "", /must hold at least one agent module/);
  });
});

describe("agent modules", () => {
  it("loads a TS agent that imports @agentsvc/agent-core from the project's node_modules", async () => {
    const dir = writeProject({
      "agents/assistant.ts": [
        'import { defineAgent, defineTool } from "@agentsvc/agent-core";',
        'import * as v from "valibot";',
        'const add = defineTool({ name: "add", description: "Adds.", input: v.object({ a: v.number(), b: v.number() }),',
        "  execute: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }) });",
        'export default defineAgent({ name: "assistant", model: { provider: "demo" }, tools: [add] });',
      ].join("\n"),
    });
    linkPackages(dir, {
      "@agentsvc/agent-core": "packages/agent-core",
      valibot: "packages/config-schema/node_modules/valibot",
    });
    const r = await loadProject(dir);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const def = r.project.rootAgent.definition as { kind: string; tools: { name: string }[] };
    expect(def.kind).toBe("agent");
    expect(def.tools.map((t) => t.name)).toEqual(["add"]);
  });

  it("rejects a default export not made by defineAgent", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": `export default { name: "bot", model: { provider: "demo" } };\n`,
    });
    expectError(errors, "agents/bot.ts", "kind", /defineAgent/);
  });

  it("rejects an unknown model provider", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "gpt" } };\n`,
    });
    expectError(
      errors,
      "agents/bot.ts",
      "model.provider",
      /must be one of demo, openai, anthropic, openai-compatible \(got "gpt"\)/,
    );
  });

  it("accepts an anthropic model with an integer thinkingBudgetTokens of at least 1024", async () => {
    const p = await loadOk({
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "anthropic", model: "claude-sonnet-4-5", thinkingBudgetTokens: 4096 } };\n`,
    });
    expect((p.rootAgent.definition as { model: unknown }).model).toMatchObject({
      thinkingBudgetTokens: 4096,
    });
  });

  it("rejects a thinkingBudgetTokens under 1024 or not an integer, naming the key", async () => {
    for (const [bad, message] of [
      ["512", /must be at least 1024 \(extended-thinking token budget\) \(got 512\)/],
      ["2048.5", /must be an integer \(extended-thinking token budget\) \(got 2048\.5\)/],
      ['"4096"', /must be an integer .* \(got "4096"\)/],
    ] as const) {
      const errors = await loadErrors({
        "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "anthropic", model: "claude-sonnet-4-5", thinkingBudgetTokens: ${bad} } };\n`,
      });
      expectError(errors, "agents/bot.ts", "model.thinkingBudgetTokens", message);
    }
  });

  it("reports a module that throws while loading, naming the file, line and column", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": 'const a: number = 1;\nthrow new Error("no key " + a);\nexport default {};\n',
    });
    expectError(errors, "agents/bot.ts:2:7", "", /must load as a module \(got an error: .*no key 1/);
  });

  it("reports a syntax error at its line and column, counted from 1", async () => {
    const errors = await loadErrors({ "agents/bot.ts": "export default {\n  a: 1,\n  {{ broken\n};\n" });
    expectError(errors, "agents/bot.ts:3:3", "", /: syntax error: Unexpected token$/);
  });

  it("uses the only named export when there is no default export", async () => {
    const p = await loadOk({
      "agents/bot.ts": `export const bot = { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
    });
    expect(p.rootAgent.declaredName).toBe("bot");
  });

  it("rejects a module with several named exports and no default", async () => {
    const errors = await loadErrors({ "agents/bot.ts": "export const a = 1;\nexport const b = 2;\n" });
    expectError(
      errors,
      "agents/bot.ts",
      "",
      /must have a default export \(or exactly one named export\) \(got exports a, b\)/,
    );
  });

  it("rejects a local toolServers reference that names no mcp/ entry", async () => {
    const errors = await loadErrors({
      "mcp/tools.ts": `export default { name: "my-tools", tools: [] };\n`,
      "agents/bot.ts": agent(
        "bot",
        `, toolServers: ["my-tools", "other", { url: "https://mcp.example.test/mcp" }]`,
      ),
    });
    expectError(
      errors,
      "agents/bot.ts",
      "toolServers[1]",
      /must name a tool server declared under mcp\/ \(declared: my-tools\)/,
    );
    expect(errors).toHaveLength(1);
  });

  it("rejects two tool servers declaring one name", async () => {
    const errors = await loadErrors({
      "mcp/a.ts": `export default { name: "tools", tools: [] };\n`,
      "mcp/b.ts": `export default { name: "tools", tools: [] };\n`,
    });
    expectError(
      errors,
      "mcp/b.ts",
      "name",
      /must be unique across tool servers \(got "tools", also declared in mcp\/a\.ts\)/,
    );
  });
});
