import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from "@ai-sdk/provider";
import type { DemoStep } from "../define.js";

// What the demo model does when no `script` is given. Pure: the same prompt gives the same step.

const QUOTE_LIMIT = 200;

function clip(text: string, limit = QUOTE_LIMIT): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

function renderOutput(output: LanguageModelV4ToolResultOutput): { text: string; failed: boolean } {
  switch (output.type) {
    case "text":
      return { text: output.value, failed: false };
    case "error-text":
      return { text: output.value, failed: true };
    case "json":
      return { text: JSON.stringify(output.value), failed: false };
    case "error-json":
      return { text: JSON.stringify(output.value), failed: true };
    case "content":
      return {
        text: output.value
          .map((part) =>
            part.type === "text" ? part.text : part.type === "file" ? `[${part.mediaType}]` : "[custom]",
          )
          .join(" "),
        failed: false,
      };
    case "execution-denied":
      return { text: output.reason ?? "the call was not approved", failed: true };
  }
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role === "user") {
      return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    }
  }
  return "";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// Words that say nothing about which tool is meant (so "tell me a story" does not pick a tool
// whose description "Tells the current time").
const FILLER = new Set(
  (
    "the and for are was were been have has had not but all any some its what whats when where who how why " +
    "this that these those there here with from into about your yours mine you just also now then can could " +
    "would will should please tell tells say says give gives get gets make makes show shows let lets use uses " +
    "need want like one two"
  ).split(" "),
);

/** Content words, lower-cased, crudely singular ("numbers" -> "number", "adds" -> "add"). */
function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^a-z0-9]+|(?<=[a-z])(?=[0-9])/)) {
    const word = raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss") ? raw.slice(0, -1) : raw;
    if (word.length >= 3 && !FILLER.has(word) && !FILLER.has(raw)) out.add(word);
  }
  return out;
}

/**
 * The tool whose name and description share the most words with the message ("what time is it"
 * -> a `clock` that "tells the current time"); a word of the name counts twice. None on a tie at 0.
 */
function toolByWords(
  text: string,
  tools: LanguageModelV4FunctionTool[],
): LanguageModelV4FunctionTool | undefined {
  const said = words(text);
  let best: { tool: LanguageModelV4FunctionTool; score: number } | undefined;
  for (const tool of tools) {
    const named = words(tool.name.replace(/([a-z])([A-Z])/g, "$1 $2"));
    const described = words(tool.description ?? "");
    let score = 0;
    for (const word of said) score += named.has(word) ? 2 : described.has(word) ? 1 : 0;
    if (score > 0 && (!best || score > best.score)) best = { tool, score };
  }
  return best?.tool;
}

/**
 * The tool the user asked for: a mention of a tool's name, "use the tool" (first tool), or else
 * the tool whose name and description words the message uses.
 */
export function requestedTool(
  text: string,
  tools: LanguageModelV4FunctionTool[],
): LanguageModelV4FunctionTool | undefined {
  const lower = text.toLowerCase();
  for (const tool of tools) {
    const pattern = new RegExp(`(^|[^a-z0-9_-])${escapeRegExp(tool.name.toLowerCase())}($|[^a-z0-9_-])`);
    if (pattern.test(lower)) return tool;
  }
  if (/\buse\s+(a|the|your)\s+tool\b/.test(lower)) return tools[0];
  return toolByWords(text, tools);
}

/**
 * Arguments that satisfy a simple JSON Schema, filled from the user's words: a string field gets the
 * message, number fields take the message's numbers in order ("add 17 and 25" -> a=17, b=25), 0
 * once they run out.
 */
export function sampleArguments(schema: unknown, userText: string): unknown {
  const numbers = (userText.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
  return fill(schema, userText, { numbers, next: 0 });
}

function fill(schema: unknown, userText: string, found: { numbers: number[]; next: number }): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ("const" in s) return s.const;
  if ("default" in s) return s.default;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "string":
      return clip(userText, 100);
    case "number":
    case "integer": {
      const value = found.numbers[found.next++] ?? 0;
      return type === "integer" ? Math.trunc(value) : value;
    }
    case "boolean":
      return true;
    case "array":
      return [];
    case "null":
      return null;
    default: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : Object.keys(properties);
      const out: Record<string, unknown> = {};
      for (const key of required) out[key] = fill(properties[key], userText, found);
      return out;
    }
  }
}

export function defaultDemoStep(
  prompt: LanguageModelV4Prompt,
  tools: LanguageModelV4FunctionTool[],
): DemoStep {
  const last = prompt.at(-1);
  if (last?.role === "tool") {
    const parts = last.content.flatMap((part) => {
      if (part.type !== "tool-result") return [];
      const { text, failed } = renderOutput(part.output);
      return failed
        ? `The tool ${part.toolName} failed: ${clip(text)}.`
        : `The tool ${part.toolName} returned: ${clip(text)}.`;
    });
    return { reasoning: "I have the tool result, so I can answer now.", text: parts.join(" ") };
  }
  const userText = lastUserText(prompt);
  const tool = requestedTool(userText, tools);
  if (tool) {
    return {
      reasoning: `The user asked for the ${tool.name} tool, so I will call it.`,
      toolCalls: [{ name: tool.name, arguments: sampleArguments(tool.inputSchema, userText) }],
    };
  }
  return {
    reasoning: "No tool was asked for, so I reply by quoting the message.",
    text: `You said: "${clip(userText)}". (This reply comes from the agentsvc demo model, a scripted stand-in; configure a real model for real answers.)`,
  };
}
