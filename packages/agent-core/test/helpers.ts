import type { RunEvent, RunHandle } from "../src/index.js";

export async function collect(handle: RunHandle, after?: number): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of handle.events(after)) out.push(event);
  return out;
}

export function contentOf(events: RunEvent[]): string {
  return events.map((e) => e.chunk.choices[0].delta.content ?? "").join("");
}

export function reasoningOf(events: RunEvent[]): string {
  return events.map((e) => e.chunk.choices[0].delta.reasoning ?? "").join("");
}

/** Resolves once the run has emitted at least one content fragment. */
export async function firstContent(handle: RunHandle): Promise<void> {
  for await (const event of handle.events()) {
    if (event.chunk.choices[0].delta.content) return;
  }
}
