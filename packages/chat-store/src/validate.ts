import { AgentsvcError } from "@agentsvc/agent-core";

/** Identifiers (userId, conversationId, keys) are non-empty strings of bounded length. */
export function requireId(value: unknown, name: string, max = 256): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new AgentsvcError(
      `invalid_${snake(name)}`,
      `${name}: expected a non-empty string (got ${show(value)})`,
    );
  }
  if (value.length > max) {
    throw new AgentsvcError(
      `invalid_${snake(name)}`,
      `${name}: expected at most ${max} characters (got ${value.length})`,
    );
  }
  return value;
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function show(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Serializes a value for a JSON column; refuses what JSON cannot hold instead of storing "undefined". */
export function toJson(value: unknown, name: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new AgentsvcError("invalid_value", `${name}: expected a JSON value (${(err as Error).message})`);
  }
  if (text === undefined) {
    throw new AgentsvcError("invalid_value", `${name}: expected a JSON value (got ${typeof value})`);
  }
  return text;
}
