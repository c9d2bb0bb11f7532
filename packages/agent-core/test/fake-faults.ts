import type { ServerResponse } from "node:http";
import { serveLocal } from "./local-server.js";

/**
 * A scripted failure a provider fake answers with instead of a reply. Shapes follow the providers'
 * documented errors: Anthropic https://docs.claude.com/en/api/errors (`{ type: "error", error:
 * { type, message } }`, and as an SSE `error` event mid-stream:
 * https://docs.claude.com/en/docs/build-with-claude/streaming#error-events), OpenAI
 * https://platform.openai.com/docs/guides/error-codes (`{ error: { message, type, param, code } }`).
 */
export type Fault =
  /** An HTTP error response with a JSON body. */
  | { fault: "status"; status: number; body: unknown; headers?: Record<string, string> }
  /** The connection is dropped before any response. */
  | { fault: "reset" }
  /** SSE frames (already formatted), then the connection dropped, ended, or left open and silent. */
  | { fault: "sse"; frames: string[]; ending: "reset" | "end" | "stall" };

export const isFault = (reply: unknown): reply is Fault =>
  typeof reply === "object" && reply !== null && "fault" in reply;

export async function serveFault(res: ServerResponse, fault: Fault): Promise<void> {
  switch (fault.fault) {
    case "status":
      res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
      res.end(JSON.stringify(fault.body));
      return;
    case "reset":
      res.socket?.destroy();
      return;
    case "sse":
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const frame of fault.frames) res.write(frame);
      if (fault.ending === "reset") {
        // Let the frames leave first, so the client has read them when the socket drops.
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.socket?.destroy();
      } else if (fault.ending === "end") res.end();
      return;
  }
}

const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const anthropicStart = (model = "claude-sonnet-4-5") =>
  anthropicEvent("message_start", {
    message: {
      id: "msg_fault",
      type: "message",
      role: "assistant",
      content: [],
      model,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });

/** Anthropic's failures (https://docs.claude.com/en/api/errors). */
export const anthropicFault = {
  status: (status: number, type: string, message: string, headers?: Record<string, string>): Fault => ({
    fault: "status",
    status,
    headers: { "request-id": "req_fault", ...headers },
    body: { type: "error", error: { type, message }, request_id: "req_fault" },
  }),
  /** Text streamed, then an SSE `error` event (e.g. `overloaded_error`) and the stream ends. */
  errorAfterText: (text: string[], type: string, message: string): Fault => ({
    fault: "sse",
    frames: [
      anthropicStart(),
      anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      ...text.map((t) =>
        anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: t } }),
      ),
      anthropicEvent("error", { error: { type, message } }),
    ],
    ending: "end",
  }),
  /** An SSE `error` event before any content (the API sends it after a 200 head). */
  errorBeforeText: (type: string, message: string): Fault => ({
    fault: "sse",
    frames: [anthropicStart(), anthropicEvent("error", { error: { type, message } })],
    ending: "end",
  }),
  /** A `redacted_thinking` block (nothing streams for it), then an SSE `error` event. */
  errorAfterRedactedThinking: (data: string, type: string, message: string): Fault => ({
    fault: "sse",
    frames: [
      anthropicStart(),
      anthropicEvent("content_block_start", { index: 0, content_block: { type: "redacted_thinking", data } }),
      anthropicEvent("content_block_stop", { index: 0 }),
      anthropicEvent("error", { error: { type, message } }),
    ],
    ending: "end",
  }),
  /** A tool_use block whose input is still streaming, then an SSE `error` event. */
  errorInToolCall: (id: string, name: string, partialJson: string, type: string, message: string): Fault => ({
    fault: "sse",
    frames: [
      anthropicStart(),
      anthropicEvent("content_block_start", {
        index: 0,
        content_block: { type: "tool_use", id, name, input: {} },
      }),
      anthropicEvent("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: partialJson },
      }),
      anthropicEvent("error", { error: { type, message } }),
    ],
    ending: "end",
  }),
  /** `message_start`, then the connection is reset before the first token. */
  resetAfterStart: (): Fault => ({ fault: "sse", frames: [anthropicStart()], ending: "reset" }),
  /** `message_start` and `ping`, then silence (a stalled stream). */
  stallAfterStart: (): Fault => ({
    fault: "sse",
    frames: [anthropicStart(), anthropicEvent("ping", {})],
    ending: "stall",
  }),
};

/** OpenAI's failures (https://platform.openai.com/docs/guides/error-codes). */
export const openaiFault = {
  status: (
    status: number,
    error: { message: string; type: string; code?: string | null; param?: string | null },
    headers?: Record<string, string>,
  ): Fault => ({
    fault: "status",
    status,
    headers,
    body: { error: { param: null, code: null, ...error } },
  }),
};

/** A server on 127.0.0.1 that answers each request (any path) with the next scripted response. */
export async function startScriptedServer(responses: Fault[]) {
  const requests: { url: string; body: unknown }[] = [];
  const local = await serveLocal(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ url: req.url ?? "", body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") });
    await serveFault(res, responses[requests.length - 1] ?? { fault: "reset" });
  });
  return { origin: new URL(local.baseURL).origin, requests, close: local.close };
}

/**
 * Gemini's streamGenerateContent (https://ai.google.dev/api/generate-content): SSE events of
 * GenerateContentResponse; errors are google.rpc.Status `{ error: { code, message, status,
 * details? } }` with the statuses of https://ai.google.dev/gemini-api/docs/troubleshooting.
 */
export const geminiFault = {
  status: (code: number, status: string, message: string, details?: unknown[]): Fault => ({
    fault: "status",
    status: code,
    body: { error: { code, message, status, ...(details ? { details } : {}) } },
  }),
  answer: (text: string): Fault => ({
    fault: "sse",
    frames: [
      `data: ${JSON.stringify({
        candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      })}\r\n\r\n`,
    ],
    ending: "end",
  }),
  /** Text, then an error event in the stream (the fake's overloaded frame). */
  errorAfterText: (text: string): Fault => ({
    fault: "sse",
    frames: [
      `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }] })}\r\n\r\n`,
      `data: ${JSON.stringify({ error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } })}\r\n\r\n`,
    ],
    ending: "end",
  }),
};
