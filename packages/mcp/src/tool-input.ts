import type { JsonSchemaInput } from "@agentsvc/agent-core";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { AnyToolDefinition } from "./define-tool-server.js";
import { sdkAjv } from "./sdk.js";

type InputCheck = { ok: true; value: unknown } | { ok: false; message: string };

export interface PreparedInput {
  /** JSON Schema sent to MCP clients as the tool's `inputSchema` (always `type: "object"`). */
  jsonSchema: Record<string, unknown> & { type: "object" };
  /** Validates call arguments; valibot's output (after transforms) is what `execute` receives. */
  check(args: unknown): Promise<InputCheck>;
}

const prepared = new WeakMap<AnyToolDefinition, PreparedInput>();
let ajv: AjvJsonSchemaValidator | undefined;

function isJsonSchemaInput(input: unknown): input is JsonSchemaInput {
  return typeof input === "object" && input !== null && (input as { type?: unknown }).type === "json-schema";
}

/** Converts and checks a tool's input schema once; throws a message naming what is wrong. */
export function prepareToolInput(tool: AnyToolDefinition): PreparedInput {
  const cached = prepared.get(tool);
  if (cached) return cached;
  const result = isJsonSchemaInput(tool.input) ? fromJsonSchema(tool.input) : fromValibot(tool.input);
  prepared.set(tool, result);
  return result;
}

function fromValibot(schema: unknown): PreparedInput {
  if (typeof schema !== "object" || schema === null || (schema as { kind?: unknown }).kind !== "schema") {
    throw new Error('expected a valibot schema or { type: "json-schema", schema } (got something else)');
  }
  const valibot = schema as v.GenericSchema;
  // "input" mode describes what callers send (before transforms); actions JSON Schema cannot
  // express (v.check, v.transform) are left out: valibot still enforces them on every call.
  const json = toJsonSchema(valibot, { typeMode: "input", errorMode: "ignore" }) as Record<string, unknown>;
  const jsonSchema = requireObjectSchema(json);
  return {
    jsonSchema,
    async check(args) {
      const parsed = await v.safeParseAsync(valibot, args ?? {});
      if (parsed.success) return { ok: true, value: parsed.output };
      return { ok: false, message: formatValibotIssues(parsed.issues) };
    },
  };
}

function fromJsonSchema(input: JsonSchemaInput): PreparedInput {
  const jsonSchema = requireObjectSchema(input.schema);
  // Ajv (draft-07) refuses unknown meta-schemas; the keywords it does not know are ignored.
  const { $schema: _dialect, ...compilable } = jsonSchema;
  ajv ??= new (sdkAjv().AjvJsonSchemaValidator)();
  let validate: ReturnType<AjvJsonSchemaValidator["getValidator"]>;
  try {
    validate = ajv.getValidator(compilable as Parameters<AjvJsonSchemaValidator["getValidator"]>[0]);
  } catch (error) {
    throw new Error(`JSON Schema does not compile: ${(error as Error).message}`);
  }
  return {
    jsonSchema,
    async check(args) {
      const result = validate(args ?? {});
      return result.valid ? { ok: true, value: result.data } : { ok: false, message: result.errorMessage };
    },
  };
}

function requireObjectSchema(json: unknown): Record<string, unknown> & { type: "object" } {
  const found = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined;
  if (found !== "object") {
    throw new Error(
      `MCP tool inputs must be JSON objects: expected an object schema such as v.object({...}) (got type ${JSON.stringify(found ?? null)})`,
    );
  }
  return json as Record<string, unknown> & { type: "object" };
}

function formatValibotIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
