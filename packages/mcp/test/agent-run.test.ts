import {
  type AgentDefinition,
  type DemoStep,
  defineAgent,
  type Message,
  RunManager,
} from "@agentsvc/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { resolveToolServers, type ToolServerDefinition } from "../src/index.js";
import { sampleServer, serveRoute } from "./fixtures.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const user = { userId: "alice", conversationId: "c1" };

/** A remote MCP server: the sample tool server behind a real HTTP listener. */
async function remoteSample() {
  const sample = sampleServer();
  const http = await serveRoute({ server: sample.server, path: "/mcp" }, cleanups);
  return { url: `${http.url}/mcp`, sample };
}

/** What the server does at start-up: resolve the agent's tool servers, hand the tools to RunManager. */
async function runManagerFor(agent: AgentDefinition, local = new Map<string, ToolServerDefinition>()) {
  const resolved = await resolveToolServers(agent.toolServers ?? [], {
    local,
    env: {},
    agentName: agent.name,
  });
  cleanups.push(() => resolved.close());
  return new RunManager({ agent, tools: resolved.tools });
}

function scripted(toolServers: AgentDefinition["toolServers"], script: DemoStep[]): AgentDefinition {
  return defineAgent({ name: "assistant", model: { provider: "demo", script }, toolServers });
}

function toolMessages(messages: Message[]) {
  return messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");
}

describe("agents using MCP tool servers", () => {
  it("runs a turn that calls a remote MCP tool and answers after its result", async () => {
    const { url, sample } = await remoteSample();
    const runs = await runManagerFor(
      scripted([{ url }], [{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "done" }]),
    );
    const result = await runs.start({ input: "add two and three", ...user }).done;
    expect(result.status).toBe("completed");
    expect(result.text).toBe("done");
    expect(sample.calls).toEqual(["add"]);
    const [tool] = toolMessages(result.newMessages);
    expect(tool).toMatchObject({ toolName: "add", result: '{"sum":5}' });
    expect(tool?.isError).toBeUndefined();
  });

  it("reports a remote tool's isError result to the model as a tool error", async () => {
    const { url } = await remoteSample();
    const runs = await runManagerFor(
      scripted([{ url }], [{ toolCalls: [{ name: "fail", arguments: {} }] }, { text: "sorry" }]),
    );
    const result = await runs.start({ input: "try it", ...user }).done;
    expect(result.status).toBe("completed");
    const [tool] = toolMessages(result.newMessages);
    expect(tool?.isError).toBe(true);
    expect(String(tool?.result)).toContain("disk is full");
  });

  it("suspends on a remote tool listed in needsApproval and calls it only after approval", async () => {
    const { url, sample } = await remoteSample();
    const runs = await runManagerFor(
      scripted(
        [{ url, needsApproval: ["add"] }],
        [{ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] }, { text: "approved and done" }],
      ),
    );
    const first = await runs.start({ input: "add", threadId: "t-approve", ...user }).done;
    expect(first.status).toBe("suspended");
    expect(sample.calls).toEqual([]);
    const pending = await runs.pending("t-approve", { userId: "alice" });
    expect(pending).toMatchObject({ toolName: "add", arguments: { a: 1, b: 1 } });

    const resumed = await runs.resume("t-approve", { decision: "approve" }, { userId: "alice" });
    const result = await resumed.done;
    expect(result.status).toBe("completed");
    expect(sample.calls).toEqual(["add"]);
    expect(toolMessages(result.newMessages).at(-1)).toMatchObject({ toolName: "add", result: '{"sum":2}' });
  });

  it("runs a local tool server's tools in-process when the agent names it", async () => {
    const sample = sampleServer();
    const runs = await runManagerFor(
      scripted(
        ["sample-tools"],
        [{ toolCalls: [{ name: "shout", arguments: { text: "hi" } }] }, { text: "ok" }],
      ),
      new Map([["sample-tools", sample.server]]),
    );
    const result = await runs.start({ input: "shout", ...user }).done;
    expect(result.status).toBe("completed");
    expect(toolMessages(result.newMessages)[0]).toMatchObject({ toolName: "shout", result: "HI" });
  });
});
