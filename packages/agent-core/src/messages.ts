// Conversation history as the runtime stores it. Provider-neutral; converted per provider call.
import type { AttachmentRef } from "./media.js";

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments. */
  arguments: unknown;
}

/**
 * Provider data attached to a piece of reasoning, keyed by provider name (e.g.
 * `{ anthropic: { signature } }`). Opaque and JSON-serialisable; passed back unchanged.
 */
export type ReasoningMetadata = Record<string, Record<string, unknown>>;

/** One reasoning block of a model call (Anthropic: one `thinking` block with its signature). */
export interface ReasoningPart {
  text: string;
  metadata?: ReasoningMetadata;
}

export type Message =
  | { role: "system"; content: string }
  | {
      role: "user";
      content: string;
      /**
       * Files the user sent with the message (refs to stored blobs, never bytes): kept with the
       * message, so a history replay shows them and every later prompt reads them from the store.
       */
      attachments?: AttachmentRef[];
    }
  | {
      role: "assistant";
      content: string;
      /** All reasoning text of the call, joined (what was streamed as `delta.reasoning`). */
      reasoning?: string;
      /**
       * The reasoning blocks one by one, present only when the provider attached metadata to
       * one of them (signatures a provider needs back). When present, prompts replay these
       * instead of `reasoning`.
       */
      reasoningParts?: ReasoningPart[];
      toolCalls?: ToolCall[];
      /**
       * The model call failed after this much had streamed: the reply is incomplete. Prompts
       * replay it with the note `(interrupted)` after its text, so the model does not take it
       * for a finished answer.
       */
      interrupted?: true;
    }
  | {
      role: "tool";
      toolCallId: string;
      toolName: string;
      result: unknown;
      isError?: boolean;
      /** The human decision an approval-gated call waited for (who decided is the caller's id). */
      decision?: { decision: "approve" | "reject" | "edit"; decidedBy: string };
    };
