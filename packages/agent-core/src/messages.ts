// Conversation history as the runtime stores it. Provider-neutral; converted per provider call.

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments. */
  arguments: unknown;
}

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; reasoning?: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; toolName: string; result: unknown; isError?: boolean };
