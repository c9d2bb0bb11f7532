// Small pieces every HTTP platform fake shares: reading a body, answering JSON, failing on command,
// and calling a webhook the way a platform does.
import type { IncomingMessage, ServerResponse } from "node:http";

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** One injected failure of the platform's outbound API. */
export interface InjectedFailure {
  status: number;
  /** Sent as `Retry-After` (seconds); 429s default to 1. */
  retryAfterSeconds?: number;
}

/** Failures queued by `failNext`, answered by the next calls in order. */
export class FailureQueue {
  readonly #queue: InjectedFailure[] = [];

  push(status: number, retryAfterSeconds?: number): void {
    this.#queue.push({
      status,
      ...(retryAfterSeconds !== undefined || status === 429
        ? { retryAfterSeconds: retryAfterSeconds ?? 1 }
        : {}),
    });
  }

  /** Answers the call with the next queued failure (using `body` for its JSON); false when none is queued. */
  answer(res: ServerResponse, body: (status: number) => unknown): boolean {
    const failure = this.#queue.shift();
    if (!failure) return false;
    const headers: Record<string, string> =
      failure.retryAfterSeconds !== undefined ? { "retry-after": String(failure.retryAfterSeconds) } : {};
    answerJson(res, failure.status, body(failure.status), headers);
    return true;
  }
}

export interface WebhookAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

/** POSTs `body` to `url` as a platform would; resolves with whatever the receiver answered. */
export async function callWebhook(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
  method: "POST" | "GET" = "POST",
): Promise<WebhookAnswer> {
  const res = await fetch(url, { method, headers, ...(method === "POST" ? { body } : {}) });
  return { status: res.status, contentType: res.headers.get("content-type"), body: await res.text() };
}

/** Rejects unless the receiver answered 2xx: what a platform counts as delivered. */
export function expectAcknowledged(answer: WebhookAnswer, what: string): WebhookAnswer {
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`${what}: the webhook answered ${answer.status} ${answer.body}`);
  return answer;
}
