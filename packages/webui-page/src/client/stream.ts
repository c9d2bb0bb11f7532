// Reads one SSE response (from /stream or /resume) with a manual body reader and dispatches its
// events: `thread` (threadId as text), `chunk` (envelope JSON), `error` ({code,message,retryAfterMs?}), `done`.
import { SseParser } from "./sse.js";

export interface StreamHandlers {
  thread(threadId: string): void;
  chunk(envelope: unknown): void;
  error(code: string, message: string, retryAfterMs?: number): void;
  /** The turn's end: `done`'s `{status, finishReason?}` (older servers send `[DONE]`: nothing known). */
  done?(finishReason: string | undefined): void;
}

/** done: the server finished the turn; aborted: we stopped reading; dropped: the body ended early. */
export type StreamEnd = "done" | "aborted" | "dropped";

export async function consumeStream(
  res: Response,
  on: StreamHandlers,
  signal: AbortSignal,
): Promise<StreamEnd> {
  if (!res.body) return "dropped";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      const events = parser.push(text);
      if (done) events.push(...parser.end());
      for (const ev of events) {
        if (ev.event === "thread") on.thread(ev.data.trim());
        else if (ev.event === "chunk") {
          let envelope: unknown;
          try {
            envelope = JSON.parse(ev.data);
          } catch {
            continue; // A malformed chunk is skipped; the rest of the reply still renders.
          }
          on.chunk(envelope);
        } else if (ev.event === "error") {
          let code = "stream_error";
          let message = ev.data;
          let retryAfterMs: number | undefined;
          try {
            const body = JSON.parse(ev.data) as { code?: unknown; message?: unknown; retryAfterMs?: unknown };
            if (typeof body.code === "string") code = body.code;
            if (typeof body.message === "string") message = body.message;
            if (typeof body.retryAfterMs === "number") retryAfterMs = body.retryAfterMs;
          } catch {
            // Plain-text error data: kept for the log; the page shows its own sentence.
          }
          on.error(code, message, retryAfterMs);
        } else if (ev.event === "done") {
          let finishReason: unknown;
          try {
            finishReason = (JSON.parse(ev.data) as { finishReason?: unknown }).finishReason;
          } catch {
            // `[DONE]`: how the turn ended is not known.
          }
          on.done?.(typeof finishReason === "string" ? finishReason : undefined);
          reader.cancel().catch(() => {});
          return "done";
        }
      }
      if (done) return "dropped";
    }
  } catch {
    return signal.aborted ? "aborted" : "dropped";
  }
}
