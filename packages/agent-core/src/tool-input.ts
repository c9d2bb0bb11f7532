import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { JsonSchemaInput, ToolDefinition } from "./define.js";

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type
export type AnyTool = ToolDefinition<any, any>;

function isJsonSchemaInput(input: AnyTool["input"]): input is JsonSchemaInput {
  return (input as JsonSchemaInput).type === "json-schema" && "schema" in input;
}

/** JSON Schema of a tool's input, as sent to the model. Unconvertible valibot parts are left open. */
export function toolInputJsonSchema(tool: AnyTool): Record<string, unknown> {
  if (isJsonSchemaInput(tool.input)) return tool.input.schema;
  const { $schema: _ignored, ...schema } = toJsonSchema(tool.input, { errorMode: "ignore" }) as Record<
    string,
    unknown
  >;
  return schema;
}

export type ParsedInput = { ok: true; value: unknown } | { ok: false; message: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates model-supplied arguments before `execute`. Valibot inputs are parsed (defaults and
 * transforms apply); JSON-Schema inputs (MCP tools) only need to be a JSON object, because the
 * tool server validates them itself.
 */
export function parseToolInput(tool: AnyTool, raw: unknown): ParsedInput {
  if (typeof raw === "string") {
    return {
      ok: false,
      message: `Invalid input for tool "${tool.name}": arguments are not valid JSON (got ${JSON.stringify(raw.slice(0, 200))})`,
    };
  }
  if (isJsonSchemaInput(tool.input)) {
    if (!isPlainObject(raw)) {
      return {
        ok: false,
        message: `Invalid input for tool "${tool.name}": expected a JSON object, got ${describe(raw)}`,
      };
    }
    return { ok: true, value: raw };
  }
  const result = v.safeParse(tool.input, raw);
  if (result.success) return { ok: true, value: result.output };
  const problems = result.issues.map((issue) => {
    const path = v.getDotPath(issue);
    return `${path ?? "(input)"}: ${issue.message}`;
  });
  return { ok: false, message: `Invalid input for tool "${tool.name}": ${problems.join("; ")}` };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/** True when this call must wait for a human decision. A throwing predicate counts as "needs approval". */
export function callNeedsApproval(tool: AnyTool, input: unknown): boolean {
  const rule = tool.needsApproval;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  try {
    return rule(input) === true;
  } catch {
    return true;
  }
}
