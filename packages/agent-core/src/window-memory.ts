import { compactMessages, type Summarizer } from "./compaction.js";
import type { CompactResult, Memory, MemoryScope } from "./memory.js";
import type { Message } from "./messages.js";
import { DEFAULT_WINDOW, isSummary, promptWindow } from "./prompt-window.js";

export { DEFAULT_WINDOW };

export interface WindowMemoryOptions {
  /** Most messages kept per scope; older ones are dropped (tool pairs stay together). Default 100. */
  maxMessages?: number;
  /** Estimated token budget of the history in a prompt (`promptWindow`). Default: none. */
  maxPromptTokens?: number;
  summarize?: Summarizer;
  /** Compact automatically once a scope holds more than this many messages. */
  summaryThreshold?: number;
  /**
   * Most conversations kept; past it the least recently used one is forgotten, so a process
   * serving many short conversations does not grow without bound. Default 10 000.
   */
  maxConversations?: number;
  /**
   * Most bytes kept in all (each message counted by its JSON length): past it the least recently
   * used conversations are forgotten, and one conversation keeps at most an eighth of it (its
   * oldest messages dropped first), so a few clients sending large messages cannot fill the heap.
   * Default 256 MiB.
   */
  maxBytes?: number;
}

const DEFAULT_MAX_CONVERSATIONS = 10_000;
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** A scope's messages with each one's size (its JSON length) and their sum. */
interface Kept {
  messages: Message[];
  sizes: number[];
  bytes: number;
}

const sizeOf = (message: Message): number => JSON.stringify(message).length;

function kept(messages: Message[], sizes: number[] = messages.map(sizeOf)): Kept {
  let bytes = 0;
  for (const size of sizes) bytes += size;
  return { messages, sizes, bytes };
}

/** Drops from the front down to `max`, then any leading tool results whose call was dropped. */
export function trimWindow(messages: Message[], max: number): Message[] {
  if (messages.length <= max) return messages;
  let start = messages.length - max;
  while (start < messages.length && messages[start]?.role === "tool") start++;
  return messages.slice(start);
}

/**
 * A copy the caller may change without touching what is stored (also durable memory's cached
 * prompt window, chat-store). Only tool arguments, results and
 * reasoning metadata can hold nested values; everything else is strings, so this is much cheaper
 * than structuredClone of the whole window on every load (which was a visible share of a turn's CPU).
 */
export function copyMessage(message: Message): Message {
  switch (message.role) {
    case "assistant": {
      const copy = { ...message };
      if (message.toolCalls) {
        copy.toolCalls = message.toolCalls.map((call) => ({ ...call, arguments: copyValue(call.arguments) }));
      }
      if (message.reasoningParts) {
        copy.reasoningParts = message.reasoningParts.map((part) =>
          part.metadata ? { ...part, metadata: structuredClone(part.metadata) } : { ...part },
        );
      }
      return copy;
    }
    case "tool":
      return { ...message, result: copyValue(message.result) };
    default:
      return { ...message };
  }
}

function copyValue(value: unknown): unknown {
  return typeof value === "object" && value !== null ? structuredClone(value) : value;
}

/**
 * In-process memory: a sliding window per (userId, conversationId), for at most
 * `maxConversations` conversations (least recently used forgotten first). Lost on restart.
 */
export class WindowMemory implements Memory {
  /** In least-recently-used-first order: a use moves the scope to the end. */
  private readonly scopes = new Map<string, Kept>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly max: number;
  private readonly maxConversations: number;
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(private readonly options: WindowMemoryOptions = {}) {
    this.max = Math.max(1, options.maxMessages ?? DEFAULT_WINDOW);
    this.maxConversations = Math.max(1, options.maxConversations ?? DEFAULT_MAX_CONVERSATIONS);
    this.maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_MAX_BYTES);
  }

  /** Messages and bytes kept now, in all conversations. */
  get held(): { conversations: number; bytes: number } {
    return { conversations: this.scopes.size, bytes: this.bytes };
  }

  private forget(key: string): void {
    const scope = this.scopes.get(key);
    if (!scope) return;
    this.scopes.delete(key);
    this.bytes -= scope.bytes;
  }

  /**
   * Stores `scope` as the most recently used, first cut to a conversation's share of the bytes,
   * then forgetting the least recent past the conversation cap or the byte cap.
   */
  private store(key: string, scope: Kept): void {
    this.forget(key);
    const cut = withinBytes(scope, Math.floor(this.maxBytes / 8));
    this.scopes.set(key, cut);
    this.bytes += cut.bytes;
    if (this.scopes.size > this.maxConversations || this.bytes > this.maxBytes) {
      // In one pass, and 1% more than needed past a large cap: restarting a Map iterator per
      // append skips every entry deleted from the front since the table last compacted.
      let excess =
        this.scopes.size > this.maxConversations
          ? this.scopes.size - this.maxConversations + Math.floor(this.maxConversations / 100)
          : 0;
      let over = this.bytes - this.maxBytes;
      const oldest: string[] = [];
      for (const [k, s] of this.scopes) {
        if (excess <= 0 && over <= 0) break;
        if (k === key) continue;
        oldest.push(k);
        excess--;
        over -= s.bytes;
      }
      for (const k of oldest) this.forget(k);
    }
  }

  get canSummarize(): boolean {
    return this.options.summarize !== undefined;
  }

  private key(scope: MemoryScope): string {
    return `${scope.userId}\u0000${scope.conversationId}`;
  }

  /** Serializes writers of one scope so a summary never overwrites an append made meanwhile. */
  private locked<T>(scope: MemoryScope, work: () => Promise<T>): Promise<T> {
    const key = this.key(scope);
    const run = (this.locks.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => {});
    this.locks.set(key, tail);
    tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return run;
  }

  async load(scope: MemoryScope): Promise<Message[]> {
    const key = this.key(scope);
    const current = this.scopes.get(key);
    if (!current) return [];
    // Most recently used now (it fits as it is: nothing is cut or forgotten on a read).
    this.scopes.delete(key);
    this.scopes.set(key, current);
    return current.messages.map(copyMessage);
  }

  async loadPrompt(scope: MemoryScope): Promise<Message[]> {
    const messages = await this.load(scope);
    if (this.options.maxPromptTokens === undefined) return messages;
    const summary = isSummary(messages[0]) ? messages[0] : undefined;
    return promptWindow(
      summary ? messages.slice(1) : messages,
      { ...this.options, maxMessages: this.max },
      summary,
    );
  }

  async count(scope: MemoryScope): Promise<number> {
    return this.scopes.get(this.key(scope))?.messages.length ?? 0;
  }

  append(scope: MemoryScope, messages: Message[], within?: () => void | Promise<void>): Promise<void> {
    return this.locked(scope, async () => {
      const key = this.key(scope);
      // Nothing here outlives the process, so "together" only needs `within` to run first.
      await within?.();
      const before = this.scopes.get(key);
      const added = messages.map(copyMessage);
      let next = kept(
        [...(before?.messages ?? []), ...added],
        [...(before?.sizes ?? []), ...added.map(sizeOf)],
      );
      const threshold = this.options.summaryThreshold;
      if (this.options.summarize && threshold !== undefined && next.messages.length > threshold) {
        try {
          next = kept(
            (await compactMessages(next.messages, Math.floor(threshold / 2), this.options.summarize))
              .messages,
          );
        } catch {
          // A failed automatic summary keeps every message; the window still bounds the size.
        }
      }
      this.store(key, trimKept(next, this.max));
    });
  }

  clear(scope: MemoryScope): Promise<void> {
    return this.locked(scope, async () => {
      this.forget(this.key(scope));
    });
  }

  summarize(scope: MemoryScope, options: { keepRecent: number }): Promise<CompactResult> {
    return this.locked(scope, async () => {
      const key = this.key(scope);
      const current = this.scopes.get(key)?.messages ?? [];
      const { messages, result } = await compactMessages(current, options.keepRecent, this.options.summarize);
      if (result.compacted) this.store(key, kept(messages));
      return result;
    });
  }
}

/** `trimWindow` on a scope with its sizes. */
function trimKept(scope: Kept, max: number): Kept {
  const messages = trimWindow(scope.messages, max);
  return messages === scope.messages
    ? scope
    : kept(messages, scope.sizes.slice(scope.sizes.length - messages.length));
}

/** Drops the oldest messages (then tool results left at the front) until `limit` bytes hold the rest; the newest stays. */
function withinBytes(scope: Kept, limit: number): Kept {
  if (scope.bytes <= limit) return scope;
  let start = 0;
  let bytes = scope.bytes;
  while (bytes > limit && start < scope.messages.length - 1) bytes -= scope.sizes[start++] as number;
  while (start < scope.messages.length - 1 && scope.messages[start]?.role === "tool")
    bytes -= scope.sizes[start++] as number;
  return { messages: scope.messages.slice(start), sizes: scope.sizes.slice(start), bytes };
}
