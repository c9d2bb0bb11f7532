import type { IncomingMessage, ServerResponse } from "node:http";
import { type Fault, isFault, serveFault } from "./fake-faults.js";
import { serveLocal } from "./local-server.js";

/**
 * One content block of a scripted reply, streamed as content_block_start, its deltas,
 * content_block_stop. Event shapes follow Anthropic's "Streaming Messages" docs.
 */
export type FakeBlock =
  | { type: "text"; deltas: string[] }
  /** `thinking_delta` events, then one `signature_delta` (the real API sends it last). */
  | { type: "thinking"; deltas: string[]; signature: string }
  /** Encrypted thinking: the whole block arrives in content_block_start, no deltas. */
  | { type: "redacted_thinking"; data: string }
  /** Tool input as `input_json_delta` partial JSON, one event per fragment. */
  | { type: "tool_use"; id: string; name: string; inputJson: string[] };

export interface FakeAnthropicReply {
  blocks: FakeBlock[];
  /** Default: `tool_use` when a block is a tool_use, else `end_turn`. */
  stopReason?: "end_turn" | "tool_use" | "max_tokens";
  /** Pause before every content_block_delta (lets a test cancel mid-stream). */
  delayMs?: number;
  /**
   * The prompt's usage as Anthropic reports it with prompt caching: `input_tokens` is the rest after
   * the cache's read and write (https://docs.claude.com/en/docs/build-with-claude/prompt-caching,
   * "Tracking cache performance"). Default `{ input_tokens: 10 }`, nothing cached.
   */
  promptUsage?: {
    input_tokens: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
}

export type FakeOutcome = "complete" | "client-closed" | "rejected";

export interface FakeAnthropic {
  baseURL: string;
  /** Parsed JSON bodies of every POST /v1/messages, in order (rejected ones included). */
  requests: Record<string, unknown>[];
  /** `x-api-key` and `anthropic-version` of each request. */
  headers: { apiKey?: string; version?: string }[];
  /** How each response ended; "client-closed" when the client hung up before the stream ended. */
  outcomes: Promise<FakeOutcome>[];
  /** The 400 messages sent, keyed by request index. */
  rejections: Map<number, string>;
  close(): Promise<void>;
}

type Block = { type?: string; [key: string]: unknown };
type Sent = { role?: string; content?: string | Block[] };

const blocksOf = (message: Sent | undefined): Block[] =>
  Array.isArray(message?.content) ? message.content : [];

/**
 * The history rules of the real API that an agent loop breaks most easily, as 400
 * `invalid_request_error` (the messages follow the real ones). Returns the message, or undefined.
 * (b) is stricter than the real API, which checks only the final assistant turn: every stored
 * assistant tool_use message must be replayable. Signatures must be ones this server issued for
 * that exact thinking text (the real API verifies them cryptographically).
 */
function historyError(body: Record<string, unknown>, issued: Map<string, string>): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Sent[]) : [];
  const thinking = (body.thinking as { type?: string } | undefined)?.type;
  const thinkingOn = thinking === "enabled" || thinking === "adaptive";
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const empty =
      message?.content === "" || (Array.isArray(message?.content) && message.content.length === 0);
    if (empty && !(i === messages.length - 1 && message?.role === "assistant")) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (message?.role !== "assistant") continue;
    const blocks = blocksOf(message);
    const toolIds = blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id));
    if (toolIds.length === 0) continue;
    const next = messages[i + 1];
    const results = new Set(
      next?.role === "user"
        ? blocksOf(next)
            .filter((b) => b.type === "tool_result")
            .map((b) => String(b.tool_use_id))
        : [],
    );
    const missing = toolIds.filter((id) => !results.has(id));
    if (missing.length > 0) {
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    if (!thinkingOn) continue;
    const first = blocks[0];
    if (first?.type !== "thinking" && first?.type !== "redacted_thinking") {
      return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
    }
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j] as Block;
      if (block.type === "redacted_thinking" && !issued.has(`redacted:${String(block.data)}`)) {
        return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
      if (block.type !== "thinking") continue;
      const signature = typeof block.signature === "string" ? block.signature : "";
      if (signature === "") return `messages.${i}.content.${j}.signature: Field required`;
      if (issued.get(signature) !== block.thinking) {
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  return undefined;
}

export interface FakeAnthropicOptions {
  /**
   * The model's context window, in tokens counted as 4 characters of the request's `system` and
   * `messages` JSON: a longer prompt gets the API's 400 "prompt is too long: N tokens > M maximum"
   * (https://docs.claude.com/en/api/errors, invalid_request_error).
   */
  maxPromptTokens?: number;
}

function tooLong(body: Record<string, unknown>, max: number | undefined): string | undefined {
  if (max === undefined) return undefined;
  const tokens = Math.ceil(JSON.stringify([body.system ?? null, body.messages]).length / 4);
  return tokens > max ? `prompt is too long: ${tokens} tokens > ${max} maximum` : undefined;
}

/** A local Anthropic Messages API on 127.0.0.1 streaming scripted replies in order as SSE. */
export async function startFakeAnthropic(
  replies: (FakeAnthropicReply | Fault)[],
  options: FakeAnthropicOptions = {},
): Promise<FakeAnthropic> {
  const requests: Record<string, unknown>[] = [];
  const headers: { apiKey?: string; version?: string }[] = [];
  const outcomes: Promise<FakeOutcome>[] = [];
  const rejections = new Map<number, string>();
  const issued = new Map<string, string>();
  let next = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST" || req.url !== "/v1/messages") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "Not found" } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    const index = requests.length;
    requests.push(body);
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    headers.push({ apiKey: header("x-api-key"), version: header("anthropic-version") });

    const invalid = historyError(body, issued) ?? tooLong(body, options.maxPromptTokens);
    if (invalid) {
      rejections.set(index, invalid);
      outcomes.push(Promise.resolve("rejected"));
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: invalid } }));
      return;
    }

    const reply = replies[next++] ?? { blocks: [{ type: "text", deltas: ["(no more scripted replies)"] }] };
    if (isFault(reply)) {
      outcomes.push(Promise.resolve("rejected"));
      await serveFault(res, reply);
      return;
    }
    let closed = false;
    outcomes.push(
      new Promise<FakeOutcome>((resolve) => {
        res.on("close", () => {
          closed = !res.writableFinished;
          resolve(closed ? "client-closed" : "complete");
        });
      }),
    );
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const pause = () => (reply.delayMs ? new Promise((r) => setTimeout(r, reply.delayMs)) : undefined);
    const delta = async (i: number, payload: Record<string, unknown>) => {
      await pause();
      if (closed) return false;
      send("content_block_delta", { index: i, delta: payload });
      return true;
    };

    send("message_start", {
      message: {
        id: `msg_fake_${index}`,
        type: "message",
        role: "assistant",
        content: [],
        model: String(body.model),
        stop_reason: null,
        stop_sequence: null,
        usage: { ...(reply.promptUsage ?? { input_tokens: 10 }), output_tokens: 1 },
      },
    });
    send("ping", {});
    let outputTokens = 1;
    for (const [i, block] of reply.blocks.entries()) {
      if (closed) return;
      switch (block.type) {
        case "text":
          send("content_block_start", { index: i, content_block: { type: "text", text: "" } });
          for (const text of block.deltas) {
            if (!(await delta(i, { type: "text_delta", text }))) return;
            outputTokens++;
          }
          break;
        case "thinking":
          send("content_block_start", {
            index: i,
            content_block: { type: "thinking", thinking: "", signature: "" },
          });
          for (const thinking of block.deltas) {
            if (!(await delta(i, { type: "thinking_delta", thinking }))) return;
            outputTokens++;
          }
          issued.set(block.signature, block.deltas.join(""));
          if (!(await delta(i, { type: "signature_delta", signature: block.signature }))) return;
          break;
        case "redacted_thinking":
          issued.set(`redacted:${block.data}`, "");
          send("content_block_start", {
            index: i,
            content_block: { type: "redacted_thinking", data: block.data },
          });
          break;
        case "tool_use":
          send("content_block_start", {
            index: i,
            content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
          });
          for (const partial_json of block.inputJson) {
            if (!(await delta(i, { type: "input_json_delta", partial_json }))) return;
            outputTokens++;
          }
          break;
      }
      send("content_block_stop", { index: i });
    }
    const stopReason =
      reply.stopReason ?? (reply.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
    send("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { ...reply.promptUsage, output_tokens: outputTokens },
    });
    send("message_stop", {});
    res.end();
  };

  const local = await serveLocal(handle);
  return {
    baseURL: local.baseURL,
    requests,
    headers,
    outcomes,
    rejections,
    close: local.close,
  };
}
