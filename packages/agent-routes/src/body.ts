import { AgentsvcError, readNodeBody, unreadNodeRequest } from "@agentsvc/agent-core";
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { requestHeader } from "./node-headers.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Reads a JSON object body: 415 unless `Content-Type: application/json`, 413 past `limit` bytes
 * (checked while reading, so a body without Content-Length cannot slip past), 400 when the bytes
 * are not JSON or not an object.
 */
export async function readJsonObject(
  c: Context,
  limit = DEFAULT_BODY_LIMIT,
): Promise<Record<string, unknown>> {
  const type = (requestHeader(c, "content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new AgentsvcError(
      "unsupported_media_type",
      `Content-Type: expected application/json (got ${type ? JSON.stringify(type) : "nothing"})`,
      415,
    );
  }
  const tooLarge = () => {
    // Close the connection after the 413 (keep-alive would have to read all of the body, however
    // large, to reach a next request); the rest is drained first, so a client still sending reads it.
    c.header("Connection", "close");
    return new AgentsvcError("too_large", `body: larger than the ${limit}-byte limit`, 413);
  };
  const incoming = unreadNodeRequest(c.env);
  const bytes = incoming
    ? await readIncoming(incoming, limit, tooLarge)
    : await readWebBody(c, limit, tooLarge);
  const text = bytes.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AgentsvcError("invalid_json", `body: not valid JSON (${(error as Error).message})`, 400);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new AgentsvcError("invalid_body", `body: expected a JSON object (got ${describe(parsed)})`, 400);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The Node request behind `@hono/node-server`, read directly (agent-core's readNodeBody): it skips
 * building a fetch `Request` and a web stream per call, a visible share of a short turn. A declared
 * length or a streamed body over the limit is refused and drained there.
 */
async function readIncoming(
  incoming: IncomingMessage,
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const read = await readNodeBody(incoming, limit).catch((error: Error) => {
    throw new AgentsvcError("invalid_body", `body: could not be read (${error.message})`, 400);
  });
  if (!read.ok) throw tooLarge();
  return Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
}

async function readWebBody(c: Context, limit: number, tooLarge: () => Error): Promise<Buffer> {
  const declared = Number(requestHeader(c, "content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const body = c.req.raw.body;
  if (body) {
    const reader = body.getReader();
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string`;
  return typeof value;
}

function invalid(path: string, expected: string, got: unknown): AgentsvcError {
  return new AgentsvcError("invalid_body", `${path}: expected ${expected} (got ${describe(got)})`, 400);
}

const THREAD_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export function optionalThreadId(body: Record<string, unknown>): string | undefined {
  const value = body.threadId;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !THREAD_ID.test(value)) {
    throw invalid("threadId", "1-128 characters of letters, digits, _ . : -", value);
  }
  return value;
}

/** The body's `conversationId`, or `fallback` (the caller's default conversation) when absent. */
export function conversationIdOf(body: Record<string, unknown>, fallback = "default"): string {
  const value = body.conversationId;
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string" || value.length === 0 || value.length > 200) {
    throw invalid("conversationId", "a string of 1-200 characters", value);
  }
  return value;
}

/**
 * Longest message one turn takes, in characters (as the chat page's API): what a turn stores in
 * memory and reads back in later prompts is bounded per message, not only per request body.
 */
export const MAX_MESSAGE_CHARS = 200_000;

/** 413 `message_too_large`: a clear refusal the client should not retry as it is. */
function checkMessageSize(key: string, value: string): void {
  if (value.length > MAX_MESSAGE_CHARS) {
    throw new AgentsvcError(
      "message_too_large",
      `${key}: ${value.length} characters, more than the ${MAX_MESSAGE_CHARS}-character limit of one message; send it shorter or in parts`,
      413,
    );
  }
}

export function requiredInput(body: Record<string, unknown>, key = "input"): string {
  const value = body[key];
  if (typeof value !== "string" || value.trim().length === 0) throw invalid(key, "a non-empty string", value);
  checkMessageSize(key, value);
  return value;
}

/** `input` of a message that carries files: a string, possibly empty (the files are the message). */
export function inputBesideFiles(body: Record<string, unknown>): string {
  const value = body.input ?? "";
  if (typeof value !== "string") throw invalid("input", "a string", value);
  checkMessageSize("input", value);
  return value;
}

export const MAX_BATCH = 20;

export function batchInputs(body: Record<string, unknown>): string[] {
  const value = body.inputs;
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_BATCH) {
    throw invalid("inputs", `an array of 1-${MAX_BATCH} non-empty strings`, value);
  }
  value.forEach((item, i) => {
    if (typeof item !== "string" || item.trim().length === 0)
      throw invalid(`inputs[${i}]`, "a non-empty string", item);
    checkMessageSize(`inputs[${i}]`, item);
  });
  return value as string[];
}
