// A Chat Completions server on 127.0.0.1 whose streams are slow: `data: <chat.completion.chunk>`
// events, then a finish chunk and `data: [DONE]`, as OpenAI documents streaming
// (https://platform.openai.com/docs/api-reference/chat-streaming/streaming), with `usage` in a last
// chunk of empty `choices` as `stream_options.include_usage` asks for. It records how each
// request ended: streamed to its end, or closed by the client first (the request was aborted).
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SlowProvider {
  baseURL: string;
  /** One per request, in order: settles when its response ends or the client closes it. */
  ends: Promise<"complete" | "aborted">[];
  close(): Promise<void>;
}

export interface Plan {
  words: number;
  everyMs: number;
  /** After the words, one whole tool call (finish_reason `tool_calls`). */
  toolCall?: { name: string; arguments: string };
  /** The last chunk's `finish_reason` (default `tool_calls` after a tool call, else `stop`). */
  finish?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /**
   * Refuses the request instead: an HTTP error with a JSON body, as OpenAI documents its errors
   * (https://platform.openai.com/docs/guides/error-codes), e.g. 429 with `Retry-After` (RFC 9110 10.2.3).
   */
  refuse?: { status: number; headers?: Record<string, string>; body: unknown };
}

/** Request n streams `plans[n].words` deltas, one every `everyMs` (30 s: 300 words at 100 ms). */
export async function slowProvider(plans: Plan[]): Promise<SlowProvider> {
  const ends: Promise<"complete" | "aborted">[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-slow",
      object: "chat.completion.chunk",
      created: 1,
      model: "slow-model",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  const stream = async (res: ServerResponse, { words, everyMs, toolCall, finish, usage, refuse }: Plan) => {
    if (refuse) {
      res.writeHead(refuse.status, { "content-type": "application/json", ...refuse.headers });
      res.end(JSON.stringify(refuse.body));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(chunk({ role: "assistant", content: "" }, null));
    for (let i = 0; i < words && !res.destroyed; i++) {
      await new Promise((r) => setTimeout(r, everyMs));
      if (!res.destroyed) res.write(chunk({ content: `word${i} ` }, null));
    }
    if (res.destroyed) return;
    if (toolCall) {
      const call = { index: 0, id: "call_slow", type: "function", function: toolCall };
      res.write(chunk({ tool_calls: [call] }, null));
    }
    res.write(chunk({}, finish ?? (toolCall ? "tool_calls" : "stop")));
    if (usage)
      res.write(
        `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", created: 1, model: "slow-model", choices: [], usage })}\n\n`,
      );
    res.end("data: [DONE]\n\n");
  };
  const server = createServer((req, res) => {
    const plan = plans[Math.min(ends.length, plans.length - 1)] ?? { words: 1, everyMs: 1 };
    ends.push(
      new Promise((resolve) => res.on("close", () => resolve(res.writableFinished ? "complete" : "aborted"))),
    );
    req.resume();
    req.on("end", () => void stream(res, plan).catch(() => res.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    ends,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
