import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Hono } from "hono";

export async function listen(app: Hono): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
  });
}

/** Reads an SSE response with a real SSE parser; `stopAfter` lets a test hang up early. */
export async function readSse(
  response: Response,
  stopAfter?: (events: EventSourceMessage[]) => boolean,
  controller?: AbortController,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
      if (stopAfter?.(events)) {
        controller?.abort();
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } catch (error) {
    if (!controller?.signal.aborted) throw error;
  }
  return events;
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal,
  });
}

export function contentOf(events: EventSourceMessage[]): string {
  return events
    .filter((e) => e.event === "chunk")
    .map((e) => JSON.parse(e.data).choices[0].delta.content ?? "")
    .join("");
}
