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
import type { memoryMessages } from "./schema.js";
import { first } from "./rows.js";
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
  private get t() {
    return this.ctx.tables;
  }

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
    return and(
      eq(this.t.memoryMessages.userId, userId),
      eq(this.t.memoryMessages.conversationId, conversationId),
    );
  }

  private rows(scope: MemoryScope) {
    const where = this.where(scope);
    return this.ctx.run((db) =>
      db
        .select({ id: this.t.memoryMessages.id, body: this.t.memoryMessages.body })
        .from(this.t.memoryMessages)
        .where(where)
        .orderBy(asc(this.t.memoryMessages.id)),
    );
  }

  async load(scope: MemoryScope): Promise<Message[]> {
    return (await this.rows(scope)).map((row) => JSON.parse(row.body) as Message);
  }

  async append(scope: MemoryScope, messages: Message[], within?: () => void | Promise<void>): Promise<void> {
    const { userId, conversationId } = scopeOf(scope);
    if (messages.length === 0) {
      if (within) await this.ctx.transaction(async () => within());
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
    await this.ctx.transaction(async () => {
      // One statement per message, in order: ids follow the turn's order on both databases.
      for (const value of values) await this.ctx.run((db) => db.insert(this.t.memoryMessages).values(value));
      await within?.();
    });
    const threshold = this.summaryThreshold;
    if (this.summarizer && threshold !== undefined && (await this.count(scope)) > threshold) {
      try {
        await this.summarize(scope, { keepRecent: Math.floor(threshold / 2) });
      } catch {
        // A failed automatic summary keeps every message; the appended turn is already stored.
      }
    }
  }

  async clear(scope: MemoryScope): Promise<void> {
    const where = this.where(scope);
    await this.ctx.run((db) => db.delete(this.t.memoryMessages).where(where));
  }

  async count(scope: MemoryScope): Promise<number> {
    const where = this.where(scope);
    const rows = await this.ctx.run((db) =>
      db.select({ n: count() }).from(this.t.memoryMessages).where(where),
    );
    return rows[0]?.n ?? 0;
  }

  async summarize(scope: MemoryScope, options: { keepRecent: number }): Promise<CompactResult> {
    const keepRecent = options?.keepRecent;
    if (!Number.isInteger(keepRecent) || keepRecent < 0) {
      throw new AgentsvcError(
        "invalid_keep_recent",
        `keepRecent: expected an integer >= 0 (got ${keepRecent})`,
      );
    }
    const rows = await this.rows(scope);
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

    return this.ctx.transaction(async () => {
      const range = and(this.where(scope), lte(this.t.memoryMessages.id, lastId));
      // The scope may have been cleared or compacted while the model was summarizing.
      const still =
        first(await this.ctx.run((db) => db.select({ n: count() }).from(this.t.memoryMessages).where(range)))
          ?.n ?? 0;
      const head = first(
        await this.ctx.run((db) =>
          db
            .select({ id: this.t.memoryMessages.id })
            .from(this.t.memoryMessages)
            .where(this.where(scope))
            .orderBy(asc(this.t.memoryMessages.id))
            .limit(1),
        ),
      );
      if (still !== older.length || head?.id !== firstId) {
        const now = await this.count(scope);
        return { compacted: false, before: now, after: now };
      }
      // The summary takes the first row's id so it stays ahead of the kept messages.
      await this.ctx.run((db) =>
        db
          .update(this.t.memoryMessages)
          .set({ role: "system", body: JSON.stringify(summary) })
          .where(eq(this.t.memoryMessages.id, firstId)),
      );
      await this.ctx.run((db) =>
        db
          .delete(this.t.memoryMessages)
          .where(
            and(
              this.where(scope),
              gt(this.t.memoryMessages.id, firstId),
              lte(this.t.memoryMessages.id, lastId),
            ),
          ),
      );
      const current = await this.count(scope);
      return { compacted: true, before: current + older.length - 1, after: current };
    });
  }
}
