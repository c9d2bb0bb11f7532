import type { ChunkDelta, ChunkEnvelope } from "./chunk.js";

/** One `chat.completion.chunk`. `created` is in seconds, as OpenAI sends it. */
export function makeChunk(
  id: string,
  model: string,
  delta: ChunkDelta,
  finishReason: string | null = null,
  kind?: ChunkEnvelope["kind"],
): ChunkEnvelope {
  const chunk: ChunkEnvelope = {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  if (kind) chunk.kind = kind;
  return chunk;
}

/** AI SDK finish reasons mapped back to the Chat Completions names clients know. */
export function chatFinishReason(reason: string | undefined): string {
  switch (reason) {
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "content_filter";
    case "length":
      return "length";
    case "error":
      return "error";
    default:
      return "stop";
  }
}
