import type { ToolDefinition } from "@agentsvc/agent-core";
import { prepareToolInput } from "./tool-input.js";

// biome-ignore lint/suspicious/noExplicitAny: tools of any input/output type live in one list
export type AnyToolDefinition = ToolDefinition<any, any>;

/** A local tool server: the default export of a file under `mcp/`. */
export interface ToolServerDefinition {
  kind: "tool-server";
  /** Declared name: what an `mcp` exposure's `target` and an agent's `toolServers` entry refer to. */
  name: string;
  /** Sent to MCP clients as the server's `instructions`. */
  description?: string;
  /** Reported to MCP clients in `serverInfo.version`. Default "0.1.0". */
  version?: string;
  tools: AnyToolDefinition[];
}

export type ToolServerInput = Omit<ToolServerDefinition, "kind">;

// The MCP spec (2025-11-25) recommends this shape for tool names; clients may refuse others.
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Declares a tool server. Checks everything an MCP client or an agent would trip over later
 * (names, duplicates, input schemas that are not JSON objects) and throws naming the key path.
 */
export function defineToolServer(input: ToolServerInput): ToolServerDefinition {
  const where = `defineToolServer(${JSON.stringify(input?.name ?? "?")})`;
  if (typeof input !== "object" || input === null) {
    throw new Error(`defineToolServer: expected an object { name, tools } (got ${describe(input)})`);
  }
  if (typeof input.name !== "string" || input.name.trim() === "") {
    throw new Error(`${where}: name: expected a non-empty string (got ${describe(input.name)})`);
  }
  if (!Array.isArray(input.tools)) {
    throw new Error(
      `${where}: tools: expected an array of defineTool(...) results (got ${describe(input.tools)})`,
    );
  }
  const seen = new Map<string, number>();
  input.tools.forEach((tool, i) => {
    const at = `${where}: tools[${i}]`;
    if (typeof tool !== "object" || tool === null || typeof tool.execute !== "function") {
      throw new Error(
        `${at}: expected a defineTool(...) result with an execute function (got ${describe(tool)})`,
      );
    }
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      throw new Error(
        `${at}.name: expected 1-128 characters of A-Z a-z 0-9 _ . - (got ${describe(tool.name)})`,
      );
    }
    const earlier = seen.get(tool.name);
    if (earlier !== undefined) {
      throw new Error(`${at}.name: duplicate tool name "${tool.name}" (also tools[${earlier}])`);
    }
    seen.set(tool.name, i);
    try {
      prepareToolInput(tool);
    } catch (error) {
      throw new Error(`${at}.input: ${(error as Error).message}`);
    }
  });
  return { kind: "tool-server", ...input, tools: [...input.tools] };
}

/** True for a value made by `defineToolServer` (used when loading `mcp/` modules). */
export function isToolServerDefinition(value: unknown): value is ToolServerDefinition {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "tool-server" &&
    typeof (value as { name?: unknown }).name === "string" &&
    Array.isArray((value as { tools?: unknown }).tools)
  );
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
