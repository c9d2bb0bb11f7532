import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { type Fault, isFault, serveFault } from "./fake-faults.js";
import { serveLocal } from "./local-server.js";

/** One scripted reply: the `choices[0].delta` objects streamed in order, then finish and [DONE]. */
export interface FakeReply {
  deltas: Record<string, unknown>[];
  finishReason?: string;
  /** Pause between deltas (lets a test cancel mid-stream). */
  delayMs?: number;
  /**
   * Token counts sent as OpenAI does with `stream_options.include_usage`: one last chunk with empty
   * `choices` and `usage` before [DONE] (https://platform.openai.com/docs/api-reference/chat/streaming).
   */
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    /** `cached_tokens`: the part of `prompt_tokens` read from the prompt cache. */
    prompt_tokens_details?: { cached_tokens: number };
  };
}

export interface FakeOpenAI {
  baseURL: string;
  /** Parsed JSON bodies of every /chat/completions request, in order. */
  requests: Record<string, unknown>[];
  /** The Authorization header of each request. */
  authorizations: (string | undefined)[];
  /** Every header of each request. */
  headers: IncomingHttpHeaders[];
  /** How each response ended: "complete", or "client-closed" when the client hung up first. */
  outcomes: Promise<"complete" | "client-closed">[];
  close(): Promise<void>;
}

/** A local Chat Completions server speaking SSE on 127.0.0.1, serving scripted replies in order. */
export async function startFakeOpenAI(replies: (FakeReply | Fault)[]): Promise<FakeOpenAI> {
  const requests: Record<string, unknown>[] = [];
  const authorizations: (string | undefined)[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const outcomes: Promise<"complete" | "client-closed">[] = [];
  let next = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    authorizations.push(req.headers.authorization);
    headers.push(req.headers);
    const reply = replies[next++] ?? { deltas: [{ content: "(no more scripted replies)" }] };
    if (isFault(reply)) {
      outcomes.push(Promise.resolve("complete"));
      await serveFault(res, reply);
      return;
    }
    let closed = false;
    const outcome = new Promise<"complete" | "client-closed">((resolve) => {
      res.on("close", () => {
        closed = !res.writableFinished;
        resolve(closed ? "client-closed" : "complete");
      });
    });
    outcomes.push(outcome);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (delta: Record<string, unknown>, finish: string | null) =>
      res.write(
        `data: ${JSON.stringify({
          id: "chatcmpl-fake",
          object: "chat.completion.chunk",
          created: 1,
          model: "fake-model",
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`,
      );
    for (const delta of reply.deltas) {
      if (closed) return;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (closed) return;
      send(delta, null);
    }
    send({}, reply.finishReason ?? "stop");
    if (reply.usage)
      res.write(
        `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [], usage: reply.usage })}\n\n`,
      );
    res.end("data: [DONE]\n\n");
  };

  const local = await serveLocal(handle);
  return {
    baseURL: local.baseURL,
    requests,
    authorizations,
    headers,
    outcomes,
    close: local.close,
  };
}
