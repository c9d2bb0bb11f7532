import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * What a tool returned, as an MCP result: strings as text, objects as JSON text plus
 * `structuredContent` (the spec asks for the serialized JSON beside structured output).
 */
export function toCallToolResult(output: unknown): CallToolResult {
  if (output === undefined || output === null) return { content: [] };
  if (typeof output === "string") return { content: [{ type: "text", text: output }] };
  const text = JSON.stringify(output);
  if (typeof output === "object" && !Array.isArray(output)) {
    return { content: [{ type: "text", text }], structuredContent: output as Record<string, unknown> };
  }
  return { content: [{ type: "text", text }] };
}

/** A tool execution error the calling model can read and correct (not a protocol error). */
export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
