// Durable agent memory: every message of every (userId, conversationId) scope, in order. The
// database keeps everything (no maxMessages window); only summarize() shortens a scope.
import {
  AgentsvcError,
  type CompactResult,
  type Memory,
  type MemoryScope,
  type Message,
  planCompaction,
  type Summarizer,
  summaryMessage,
} from "@agentsvc/agent-core";
import { and, asc, count, eq, gt, lte } from "./orm.js";
import type { StoreContext } from "./context.js";
import { memoryMessages } from "./schema.js";
import { requireId } from "./validate.js";

export interface CreateMemoryOptions {
  /** Turns older messages into summary text (agent-core's createSummarizer). The store owns no model. */
  summarize?: Summarizer;
  /** True only when a summary provider and model are configured (then `summarize` is required). */
  canSummarize: boolean;
  /** Compact automatically (keeping half) once a scope holds more messages than this. */
  summaryThreshold?: number;
}

function scopeOf(scope: MemoryScope): MemoryScope {
  return {
    userId: requireId(scope?.userId, "userId"),
    conversationId: requireId(scope?.conversationId, "conversationId"),
  };
}

export class SqliteMemory implements Memory {
  readonly canSummarize: boolean;
  private readonly summarizer: Summarizer | undefined;
  private readonly summaryThreshold: number | undefined;

  constructor(
    private readonly ctx: StoreContext,
    options: CreateMemoryOptions,
  ) {
    if (options.canSummarize && typeof options.summarize !== "function") {
      throw new TypeError("createMemory: canSummarize is true but no summarize function was given");
    }
    this.canSummarize = options.canSummarize;
    this.summarizer = options.canSummarize ? options.summarize : undefined;
    this.summaryThreshold = options.summaryThreshold;
  }

  private where(scope: MemoryScope) {
    const { userId, conversationId } = scopeOf(scope);
    return and(eq(memoryMessages.userId, userId), eq(memoryMessages.conversationId, conversationId));
  }

  private rows(scope: MemoryScope) {
    return this.ctx.db
      .select({ id: memoryMessages.id, body: memoryMessages.body })
      .from(memoryMessages)
      .where(this.where(scope))
      .orderBy(asc(memoryMessages.id))
      .all();
  }

  async load(scope: MemoryScope): Promise<Message[]> {
    return this.rows(scope).map((row) => JSON.parse(row.body) as Message);
  }

  async append(scope: MemoryScope, messages: Message[], within?: () => void): Promise<void> {
    const { userId, conversationId } = scopeOf(scope);
    if (messages.length === 0) {
      if (within) this.ctx.db.transaction(() => within());
      return;
    }
    const values = messages.map((message, i) => {
      if (!message || typeof message !== "object" || typeof message.role !== "string") {
        throw new AgentsvcError("invalid_message", `messages[${i}]: expected a message with a role`);
      }
      return {
        userId,
        conversationId,
        role: message.role,
        body: JSON.stringify(message),
        createdAt: this.ctx.now(),
      };
    });
    // One transaction: a turn's messages (and the caller's `within` writes: an inbox record
    // marked done, its reply queued) land together or not at all.
    this.ctx.db.transaction(
      (tx) => {
        for (const value of values) tx.insert(memoryMessages).values(value).run();
        within?.();
      },
      { behavior: "immediate" },
    );
    const threshold = this.summaryThreshold;
    if (this.summarizer && threshold !== undefined && this.countNow(scope) > threshold) {
      try {
        await this.summarize(scope, { keepRecent: Math.floor(threshold / 2) });
      } catch {
        // A failed automatic summary keeps every message; the appended turn is already stored.
      }
    }
  }

  async clear(scope: MemoryScope): Promise<void> {
    this.ctx.db.delete(memoryMessages).where(this.where(scope)).run();
  }

  async count(scope: MemoryScope): Promise<number> {
    return this.countNow(scope);
  }

  private countNow(scope: MemoryScope): number {
    return this.ctx.db.select({ n: count() }).from(memoryMessages).where(this.where(scope)).get()?.n ?? 0;
  }

  async summarize(scope: MemoryScope, options: { keepRecent: number }): Promise<CompactResult> {
    const keepRecent = options?.keepRecent;
    if (!Number.isInteger(keepRecent) || keepRecent < 0) {
      throw new AgentsvcError(
        "invalid_keep_recent",
        `keepRecent: expected an integer >= 0 (got ${keepRecent})`,
      );
    }
    const rows = this.rows(scope);
    const before = rows.length;
    const unchanged = { compacted: false, before, after: before };
    if (!this.summarizer || before <= keepRecent) return unchanged;
    const messages = rows.map((row) => JSON.parse(row.body) as Message);
    // agent-core's plan: the kept tail never starts with a tool result (tool pairs stay together).
    const plan = planCompaction(messages, keepRecent);
    if (plan.summarize.length === 0) return unchanged;
    const older = rows.slice(0, plan.summarize.length);
    const firstId = older[0]!.id;
    const lastId = older[older.length - 1]!.id;

    const summary = summaryMessage(await this.summarizer(plan.summarize));

    return this.ctx.db.transaction(
      (tx) => {
        const range = and(this.where(scope), lte(memoryMessages.id, lastId));
        // The scope may have been cleared or compacted while the model was summarizing.
        const still = tx.select({ n: count() }).from(memoryMessages).where(range).get()?.n ?? 0;
        const first = tx
          .select({ id: memoryMessages.id })
          .from(memoryMessages)
          .where(this.where(scope))
          .orderBy(asc(memoryMessages.id))
          .limit(1)
          .get();
        if (still !== older.length || first?.id !== firstId) {
          const now = this.countNow(scope);
          return { compacted: false, before: now, after: now };
        }
        // The summary takes the first row's id so it stays ahead of the kept messages.
        tx.update(memoryMessages)
          .set({ role: "system", body: JSON.stringify(summary) })
          .where(eq(memoryMessages.id, firstId))
          .run();
        tx.delete(memoryMessages)
          .where(and(this.where(scope), gt(memoryMessages.id, firstId), lte(memoryMessages.id, lastId)))
          .run();
        const current = this.countNow(scope);
        return { compacted: true, before: current + older.length - 1, after: current };
      },
      { behavior: "immediate" },
    );
  }
}
