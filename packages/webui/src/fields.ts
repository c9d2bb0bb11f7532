import { SHARED_USER_ID } from "./identity.js";
import { badInput, typeName } from "./errors.js";
import type { JsonObject } from "./body.js";

/** Longest id (threadId, conversationId, preference key) the API accepts. */
export const MAX_ID_LENGTH = 200;
/** Longest free text (input, reason, title before truncation) the API accepts in one field. */
const MAX_TEXT_LENGTH = 200_000;

interface StringRule {
  max?: number;
  /** Refuse "" and whitespace-only strings. */
  nonBlank?: boolean;
}

function checkString(where: string, key: string, value: unknown, rule: StringRule): string {
  if (typeof value !== "string")
    throw badInput(`${where}: ${key}: expected a string, got ${typeName(value)}`);
  const max = rule.max ?? MAX_TEXT_LENGTH;
  if (value.length > max)
    throw badInput(`${where}: ${key}: expected at most ${max} characters, got ${value.length}`);
  if (rule.nonBlank && value.trim() === "")
    throw badInput(`${where}: ${key}: expected a non-empty string, got ""`);
  return value;
}

/** A string field that must be present. `where` names the route, e.g. `POST /steer`. */
export function requiredString(where: string, body: JsonObject, key: string, rule: StringRule = {}): string {
  if (body[key] === undefined || body[key] === null)
    throw badInput(`${where}: ${key}: required, but missing`);
  return checkString(where, key, body[key], rule);
}

/** A string field that may be absent (or null). */
export function optionalString(
  where: string,
  body: JsonObject,
  key: string,
  rule: StringRule = {},
): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  return checkString(where, key, value, rule);
}

/** An id field (threadId, conversationId): non-blank, bounded, no control characters. */
export function idField(where: string, body: JsonObject, key: string, required: true): string;
export function idField(where: string, body: JsonObject, key: string, required: false): string | undefined;
export function idField(where: string, body: JsonObject, key: string, required: boolean): string | undefined {
  const value = body[key];
  if (!required && (value === undefined || value === null)) return undefined;
  if (required && (value === undefined || value === null))
    throw badInput(`${where}: ${key}: required, but missing`);
  return checkId(where, key, value);
}

/** The one id rule (non-blank, at most 200 characters, no control characters), for every route. */
export function checkId(where: string, key: string, value: unknown): string {
  const id = checkString(where, key, value, { max: MAX_ID_LENGTH, nonBlank: true });
  if (/[\u0000-\u001f\u007f]/.test(id))
    throw badInput(`${where}: ${key}: must not contain control characters`);
  return id;
}

/**
 * The caller's default conversation: `default:<userId>` (`default` for the plain `shared` workspace). Conversation ids are unique store-wide (the first user of an id owns it), so one
 * shared `default` would lock every other account out of its own default conversation.
 */
export function defaultConversationId(userId: string): string {
  return userId === SHARED_USER_ID ? "default" : `default:${userId}`;
}

/** The conversation a request addresses; the caller's default one when absent. */
export function conversationIdOf(where: string, body: JsonObject, userId: string): string {
  const given = idField(where, body, "conversationId", false);
  if (given === undefined) return defaultConversationId(userId);
  refuseOthersDefault(where, given, userId);
  return given;
}

/** `default:<someone else>` is reserved for that user: nobody can claim it first. */
export function refuseOthersDefault(where: string, conversationId: string, userId: string): void {
  if (conversationId.startsWith("default:") && conversationId !== defaultConversationId(userId)) {
    throw badInput(
      `${where}: conversationId: ids starting with "default:" are reserved (got "${conversationId}")`,
    );
  }
}

/** The query parameters of a GET route as a plain object, so the same field rules apply. */
export function queryObject(query: Record<string, string>): JsonObject {
  return { ...query };
}

/** A conversation title: one line, at most 60 characters. */
const TITLE_MAX = 60;
export function normalizeTitle(title: string): string {
  return title.replace(/\s+/g, " ").trim().slice(0, TITLE_MAX);
}
