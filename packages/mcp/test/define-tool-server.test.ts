import { defineTool } from "@agentsvc/agent-core";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { defineToolServer, isToolServerDefinition } from "../src/index.js";
import { connectClient, serveRoute } from "./fixtures.js";

const noop = defineTool({
  name: "noop",
  description: "Does nothing.",
  input: v.object({}),
  execute: () => "ok",
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe("defineToolServer", () => {
  it("returns a tool-server definition that isToolServerDefinition recognises", () => {
    const server = defineToolServer({ name: "crm", tools: [noop] });
    expect(server).toMatchObject({ kind: "tool-server", name: "crm", tools: [noop] });
    expect(isToolServerDefinition(server)).toBe(true);
    expect(isToolServerDefinition({ name: "crm", tools: [] })).toBe(false);
  });

  it("refuses an empty name", () => {
    expect(() => defineToolServer({ name: " ", tools: [] })).toThrow(
      /name: expected a non-empty string \(got " "\)/,
    );
  });

  it("refuses tools that is not an array", () => {
    expect(() => defineToolServer({ name: "crm", tools: "noop" as never })).toThrow(
      /defineToolServer\("crm"\): tools: expected an array/,
    );
  });

  it("refuses a duplicate tool name, naming both positions", () => {
    expect(() => defineToolServer({ name: "crm", tools: [noop, noop] })).toThrow(
      'defineToolServer("crm"): tools[1].name: duplicate tool name "noop" (also tools[0])',
    );
  });

  it("refuses a tool name MCP clients would reject", () => {
    const spaced = defineTool({ name: "look up", description: "", input: v.object({}), execute: () => "" });
    expect(() => defineToolServer({ name: "crm", tools: [spaced] })).toThrow(
      /tools\[0\]\.name: expected 1-128 characters/,
    );
  });

  it("refuses a tool whose input is not an object schema", () => {
    const scalar = defineTool({
      name: "scalar",
      description: "",
      input: v.string(),
      execute: (s: string) => s,
    });
    expect(() => defineToolServer({ name: "crm", tools: [scalar] })).toThrow(
      /tools\[0\]\.input: MCP tool inputs must be JSON objects.*got type "string"/,
    );
  });

  it("refuses something that is not a tool", () => {
    expect(() => defineToolServer({ name: "crm", tools: [{ name: "x" } as never] })).toThrow(
      /tools\[0\]: expected a defineTool\(\.\.\.\) result with an execute function/,
    );
  });

  it("keeps valibot checks JSON Schema cannot express and still enforces them on calls", async () => {
    const even = defineTool({
      name: "even",
      description: "Accepts even numbers.",
      input: v.object({
        n: v.pipe(
          v.number(),
          v.check((n) => n % 2 === 0, "n must be even"),
        ),
      }),
      execute: ({ n }) => `ok ${n}`,
    });
    const server = defineToolServer({ name: "math", tools: [even] });
    const url = await serveServer(server);
    const client = await connectClient(url);
    cleanups.push(() => client.close());
    const [listed] = (await client.listTools()).tools;
    expect(listed?.inputSchema.properties).toEqual({ n: { type: "number" } });
    const bad = await client.callTool({ name: "even", arguments: { n: 3 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("n: n must be even");
    const good = await client.callTool({ name: "even", arguments: { n: 4 } });
    expect(good.content).toEqual([{ type: "text", text: "ok 4" }]);
  });

  it("serves JSON-schema tools as given and validates their arguments", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    };
    const weather = defineTool<{ city: string }, string>({
      name: "weather",
      description: "Weather for a city.",
      input: { type: "json-schema", schema },
      execute: ({ city }) => `sunny in ${city}`,
    });
    const url = await serveServer(defineToolServer({ name: "wx", tools: [weather] }));
    const client = await connectClient(url);
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools[0]?.inputSchema).toEqual(schema);
    expect((await client.callTool({ name: "weather", arguments: { city: "Oslo" } })).content).toEqual([
      { type: "text", text: "sunny in Oslo" },
    ]);
    const bad = await client.callTool({ name: "weather", arguments: { town: "Oslo" } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("city");
  });
});

async function serveServer(server: ReturnType<typeof defineToolServer>): Promise<string> {
  const http = await serveRoute({ server, path: "/mcp" }, cleanups);
  return `${http.url}/mcp`;
}
