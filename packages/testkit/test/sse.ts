// Reads a provider fake's answer the way an SSE client does (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// events end at a blank line, `event:` names one, `data:` lines carry its payload.
export interface SseEvent {
  event?: string;
  data: string;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    events.push({ ...(event ? { event } : {}), data: data.join("\n") });
  }
  return events;
}

/** POSTs JSON to a fake and returns status, headers and body text. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    // A bound on a hang, not on speed: a 21 MB body took more than 5 s at load 50 (the abort fired).
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

/** Provider JSON as the assertions read it: any field, checked by the expectation itself. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read the providers' documented JSON loosely and assert its shape
export type Json = any;
