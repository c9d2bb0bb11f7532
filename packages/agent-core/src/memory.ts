import type { Message } from "./messages.js";

/** One conversation bucket. `userId` is the isolation boundary; it is always derived server-side. */
export interface MemoryScope {
  userId: string;
  conversationId: string;
}

export interface CompactResult {
  compacted: boolean;
  before: number;
  after: number;
}

export interface Memory {
  /** Every stored message of the scope, oldest first (the page's history). */
  load(scope: MemoryScope): Promise<Message[]>;
  /**
   * What a turn's prompt carries: the summary (if any) and the most recent messages within the
   * configured window (`promptWindow`). A durable store reads only those rows. Memories without it
   * are loaded whole.
   */
  loadPrompt?(scope: MemoryScope): Promise<Message[]>;
  /**
   * Appends one turn's messages. `within` is the caller's writes that must land with them: a
   * durable store runs it inside the same transaction (so a crash keeps both or neither; the
   * caller's store calls inside it join that transaction), an in-process store right after the
   * append. When `within` throws or rejects, nothing is appended.
   */
  append(scope: MemoryScope, messages: Message[], within?: () => void | Promise<void>): Promise<void>;
  /** Clears exactly one scope; never touches another user's or conversation's messages. */
  clear(scope: MemoryScope): Promise<void>;
  count(scope: MemoryScope): Promise<number>;
  /** Replaces older messages of the scope by a summary, keeping the `keepRecent` most recent. */
  summarize(scope: MemoryScope, options: { keepRecent: number }): Promise<CompactResult>;
  /** True only when a summary provider and model are configured. */
  readonly canSummarize: boolean;
}
