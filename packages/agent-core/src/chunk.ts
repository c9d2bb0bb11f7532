// The stream chunk envelope: a full `chat.completion.chunk`, normalized across providers.

export interface ToolCallDelta {
  /** Stable per tool call within one assistant message; clients accumulate fragments by it. */
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments?: string };
}

export interface ChunkDelta {
  role?: "assistant";
  content?: string;
  /** Reasoning text; OpenAI-compatible `reasoning_content` and `reasoning` both land here. */
  reasoning?: string;
  tool_calls?: ToolCallDelta[];
}

export interface ChunkEnvelope {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: [{ index: 0; delta: ChunkDelta; finish_reason: string | null }];
  /** Present only on control chunks. `middleware_stop`: the run suspended awaiting approval. */
  kind?: "middleware_stop";
}
