import * as v from "valibot";
import { defineAgent, defineTool, type RunEvent, type RunHandle, type RunManager } from "../src/index.js";

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

/**
 * Two tools for the orphaned-call tests: `first` cancels its own run while it works, so the model's
 * second call (`second`) never runs and must get a synthetic cancelled result.
 */
export function cancelAfterFirstTools(runs: () => RunManager) {
  const first = defineTool({
    name: "first",
    description: "cancels the run while it works",
    input: v.object({}),
    execute: (_input, ctx) => {
      runs().cancel(ctx.threadId, { userId: ctx.userId });
      return "first done";
    },
  });
  const second = defineTool({
    name: "second",
    description: "never runs",
    input: v.object({}),
    execute: () => "second done",
  });
  return { first, second };
}

/** An agent whose first step asks to move 5 with an approval-gated tool (the run suspends), then says "Finished.". */
export function transferAgent() {
  return defineAgent({
    name: "bank",
    tools: [
      defineTool({
        name: "transfer",
        description: "Move money",
        input: v.object({ amount: v.number() }),
        needsApproval: true,
        execute: ({ amount }) => ({ moved: amount }),
      }),
    ],
    model: {
      provider: "demo",
      script: [
        { text: "Let me do that.", toolCalls: [{ name: "transfer", arguments: { amount: 5 } }] },
        { text: "Finished." },
      ],
    },
  });
}
