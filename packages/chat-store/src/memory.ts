// Durable agent memory: every message of every (userId, conversationId) scope, in order. The
// database keeps everything; a turn's prompt reads only its window (`loadPrompt`: the summary and
// the most recent rows, with a LIMIT), so a turn costs the same however long the conversation is.
// Only summarize() shortens a scope.
import {
  AgentsvcError,
  type CompactResult,
  copyMessage,
  DEFAULT_WINDOW,
  isSummary,
  type Memory,
  type MemoryScope,
  type Message,
  planCompaction,
  promptWindow,
  type PromptWindowOptions,
  type Summarizer,
  summaryMessage,
} from "@agentsvc/agent-core";
import { and, asc, count, desc, eq, gt, gte, lte } from "./orm.js";
import type { Db, StoreContext } from "./context.js";
import { type CachedWindow, type PromptCache, parsed, promptCacheOf, withinBudget } from "./prompt-cache.js";
import { first } from "./rows.js";
import { type WindowRow, windowBatch } from "./window-batch.js";
import type { StatementBatch } from "./statement-batch.js";
import { SeenTokens } from "./seen-tokens.js";
import { clientOf } from "./sqlite-writes.js";
import { memoryInsert, pgRows } from "./pg-writes.js";
import { requireId } from "./validate.js";

export interface CreateMemoryOptions extends PromptWindowOptions {
  /** Turns older messages into summary text (agent-core's createSummarizer). The store owns no model. */
  summarize?: Summarizer;
  /** True only when a summary provider and model are configured (then `summarize` is required). */
  canSummarize: boolean;
  /**
   * Compact automatically (keeping half) once a scope holds more messages than this. It runs after
   * the append has committed, off the turn's path; one compaction per scope at a time, also across
   * instances on one database (a claim on the scope's oldest row).
   */
  summaryThreshold?: number;
}

interface AppendRow {
  userId: string;
  conversationId: string;
  role: string;
  body: string;
  createdAt: number;
}

/**
 * SQLite: an append's rows in one INSERT written here rather than built by drizzle each turn (its
 * query building was a visible share of a turn in the soak profile). Through the connection's
 * `prepare`, so the statement is reused by text and the group commit still counts the write (the
 * caller is answered after the WAL sync that covers it). Returns the rows with their ids.
 */
function insertSqlite(db: Db, rows: AppendRow[]): WindowRow[] {
  const client = clientOf(db);
  const text = `INSERT INTO memory_messages (user_id, conversation_id, role, body, created_at) VALUES ${rows.map(() => "(?, ?, ?, ?, ?)").join(", ")} RETURNING id`;
  const ids = client
    .prepare(text)
    .all(rows.flatMap((r) => [r.userId, r.conversationId, r.role, r.body, r.createdAt])) as { id: number }[];
  // Numbered in the VALUES order (RETURNING's own order is unspecified).
  const sorted = ids.map((r) => r.id).sort((a, b) => a - b);
  return rows.map((r, i) => ({ id: sorted[i] as number, role: r.role, body: r.body }));
}

/** The prompt window reads' parameters: the scope's ids, then the LIMIT (memory-plan.test explains them so). */
type WindowParams = [userId: string, conversationId: string, limit: number];

/** Rows per insert statement of an append. */
const APPEND_CHUNK = 1000;

/** How long another instance leaves a scope's compaction to the one that claimed it. */
const COMPACTION_CLAIM_MS = 10 * 60_000;

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
  private readonly window: PromptWindowOptions;
  /** Automatic compactions running in this process, by scope key. */
  private readonly compacting = new Map<string, Promise<void>>();
  /** Scopes appended to while their check was running (group commit answers them together). */
  private readonly recheck = new Set<string>();
  /** SQLite: the prompt window's reads, built once per drizzle handle (`windowReads`). */
  private readonly preparedReads = new WeakMap<Db, ReturnType<SqliteMemory["prepareWindowReads"]>>();

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
    this.window = {
      maxMessages: options.maxMessages ?? DEFAULT_WINDOW,
      maxPromptTokens: options.maxPromptTokens,
    };
    if (ctx.dialect === "postgres")
      this.windows = windowBatch(ctx, this.window.maxMessages ?? DEFAULT_WINDOW);
  }

  /** PostgreSQL: prompt windows read at once outside a transaction share one statement (window-batch.ts). */
  private readonly windows:
    | StatementBatch<{ userId: string; conversationId: string }, WindowRow[]>
    | undefined;

  private where(scope: MemoryScope) {
    const { userId, conversationId } = scopeOf(scope);
    return and(
      eq(this.t.memoryMessages.userId, userId),
      eq(this.t.memoryMessages.conversationId, conversationId),
    );
  }

  /**
   * A scope's rows in id order, read through the scope index `(user_id, conversation_id, id)`.
   * On PostgreSQL the conversation is written as a closed range, not an equality: the planner drops
   * columns equated to a constant from the ORDER BY, so `ORDER BY id` could also be served by the
   * primary key, and once the table is analyzed it may walk it and filter out every other scope's
   * rows (a conversation begun after many others: tens of thousands of rows for its head). With a
   * range the order `(conversation_id, id)` stays, and only the scope index provides it.
   * `user_id` stays an equality: btree costing counts index conditions only up to the first column
   * without one, so a range there priced the scan as reading every user's rows, and a short scope
   * (no LIMIT discount) got a sequential scan and a sort instead.
   * `x >= v AND x <= v` selects what `x = v` does under the default (deterministic) collation.
   */
  private ordered(scope: MemoryScope, direction: typeof asc) {
    const m = this.t.memoryMessages;
    if (this.ctx.dialect !== "postgres") return { where: this.where(scope), orderBy: [direction(m.id)] };
    const { userId, conversationId } = scopeOf(scope);
    return {
      where: and(
        eq(m.userId, userId),
        gte(m.conversationId, conversationId),
        lte(m.conversationId, conversationId),
      ),
      orderBy: [direction(m.conversationId), direction(m.id)],
    };
  }

  private rows(scope: MemoryScope) {
    const { where, orderBy } = this.ordered(scope, asc);
    return this.ctx.run((db) =>
      db
        .select({ id: this.t.memoryMessages.id, body: this.t.memoryMessages.body })
        .from(this.t.memoryMessages)
        .where(where)
        .orderBy(...orderBy),
    );
  }

  async load(scope: MemoryScope): Promise<Message[]> {
    return (await this.rows(scope)).map((row) => JSON.parse(row.body) as Message);
  }

  /**
   * The prompt's history: the summary (when the scope was compacted) and at most `maxMessages`
   * recent messages within `maxPromptTokens`, read with two indexed LIMIT queries.
   */
  async loadPrompt(scope: MemoryScope): Promise<Message[]> {
    const limit = this.window.maxMessages ?? DEFAULT_WINDOW;
    if (this.ctx.dialect === "postgres") {
      let head: WindowRow | undefined;
      let recent: WindowRow[];
      // One round trip: `(head) UNION ALL (recent)`, PostgreSQL keeping each part's ORDER BY and
      // LIMIT. Sorted here, the head is the lowest id; when the scope fits the window it comes
      // twice (also as the oldest recent row), otherwise every recent row is newer than it.
      const m = this.t.memoryMessages;
      const fields = { id: m.id, role: m.role, body: m.body };
      // The drizzle query is built for a read alone only: a turn's read is grouped (window-batch.ts).
      const rows =
        this.windows && !this.ctx.inTransaction()
          ? await this.windows.add(scopeOf(scope))
          : await this.ctx.run((db) => {
              const oldest = this.ordered(scope, asc);
              const newest = this.ordered(scope, desc);
              return db
                .select(fields)
                .from(m)
                .where(oldest.where)
                .orderBy(...oldest.orderBy)
                .limit(1)
                .unionAll(
                  db
                    .select(fields)
                    .from(m)
                    .where(newest.where)
                    .orderBy(...newest.orderBy)
                    .limit(limit),
                );
            });
      rows.sort((a, b) => a.id - b.id);
      head = rows[0];
      recent = rows.slice(1);
      let summary: Message | undefined;
      if (head?.role === "system") {
        const message = JSON.parse(head.body) as Message;
        if (isSummary(message)) summary = message;
      }
      // A short scope's summary is also its first recent row: it is the summary, not history.
      if (summary && recent[0]?.id === head?.id) recent.shift();
      const messages = recent.map((row) => JSON.parse(row.body) as Message);
      return promptWindow(messages, this.window, summary);
    }
    const { head, rows } = await this.sqliteWindow(scope, limit);
    const summary = head && head.role === "system" && isSummary(head.message) ? head.message : undefined;
    // A short scope's summary is also its first recent row: it is the summary, not history.
    const recent = summary && rows[0]?.id === head?.id ? rows.slice(1) : rows;
    // Copies: the cached window is shared by the turns that follow.
    return promptWindow(
      recent.map((row) => copyMessage(row.message)),
      this.window,
      summary && copyMessage(summary),
    );
  }

  /**
   * SQLite: the scope's first row and its last `limit` rows. One operation (one slot of the group
   * commit: inside its transaction a read takes no lock of its own), with queries built once:
   * building the drizzle queries each turn cost more than running them (soak profile). With the
   * scope's window cached (prompt-cache.ts) it reads nothing but `PRAGMA data_version`; otherwise
   * the whole window, and the head apart only when the window is full (a shorter window reaches
   * back to the scope's first row).
   */
  private async sqliteWindow(
    scope: MemoryScope,
    limit: number,
  ): Promise<Pick<CachedWindow, "head" | "rows">> {
    const params = { ...scopeOf(scope), limit };
    // Inside a caller's transaction the rows read may still be rolled back: not cached.
    const cache = this.ctx.inTransaction() ? undefined : promptCacheOf(this.ctx);
    return this.ctx.run(async (db) => this.readWindow(db, params, cache));
  }

  private readWindow(
    db: Db,
    params: { userId: string; conversationId: string; limit: number },
    cache: PromptCache | undefined,
  ): CachedWindow {
    const { limit } = params;
    const key = `${params.userId}\u0000${params.conversationId}`;
    const reads = this.windowReads(db);
    const losses = this.ctx.losses();
    const dataVersion = cache ? Number(reads.dataVersion.pluck().get()) : 0;
    // Cut to the token budget before it is kept: a cached window holds only what a prompt carries.
    const budget = this.window.maxPromptTokens;
    // A cached window holds every row this process appended since (prompt-cache.ts): nothing to read.
    const base = cache?.usable(key, limit, budget, dataVersion, losses);
    if (base) return base;
    const { userId, conversationId } = params;
    const rows = reads.recent.all(userId, conversationId, limit).reverse().map(parsed);
    const head = rows.length < limit ? rows[0] : reads.head.get(userId, conversationId, 1);
    const window: CachedWindow = {
      limit,
      budget,
      dataVersion,
      losses,
      head: head && !("message" in head) ? parsed(head) : head,
      rows: withinBudget(rows, budget),
      lastId: rows.at(-1)?.id ?? 0,
    };
    // Saved by the operation that read it: the next operation on the connection starts from it.
    cache?.save(key, window);
    return window;
  }

  /** SQLite: the prompt window's reads on `db`, prepared once with the scope as placeholders. */
  private windowReads(db: Db) {
    let reads = this.preparedReads.get(db);
    if (!reads) {
      reads = this.prepareWindowReads(db);
      this.preparedReads.set(db, reads);
    }
    return reads;
  }

  // Written here rather than built by drizzle: building the two queries was most of a process's
  // first memory read (~5 ms of a first start's turn), as for insertSqlite.
  private prepareWindowReads(db: Db) {
    const client = clientOf(db);
    const select = "SELECT id, role, body FROM memory_messages WHERE user_id = ? AND conversation_id = ?";
    return {
      head: client.prepare<WindowParams, WindowRow>(`${select} ORDER BY id ASC LIMIT ?`),
      recent: client.prepare<WindowParams, WindowRow>(`${select} ORDER BY id DESC LIMIT ?`),
      // Moves when another connection (another process) committed to the file since the last look.
      dataVersion: client.prepare("PRAGMA data_version"),
    };
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
    // Outside a caller's transaction the rows stay unless this append's own work is undone (which
    // moves the store's losses count): the scope's cached window can take them (prompt-cache.ts).
    const own = !this.ctx.inTransaction();
    if (!within && values.length <= APPEND_CHUNK && own) {
      // The turn's messages alone: one statement, atomic by itself, so no transaction around it
      // (on SQLite no savepoint in the group commit, on PostgreSQL no BEGIN and COMMIT). Still a
      // write: the caller is answered once it is durable, as with a transaction.
      await this.ctx.run(async (db) => {
        if (this.ctx.dialect === "sqlite") this.insertRows(db, values, own);
        else await pgRows(db, memoryInsert(values));
      });
      this.compactLater(scope);
      return;
    }
    // One transaction: a turn's messages (and the caller's `within` writes: an inbox record
    // marked done, its reply queued) land together or not at all.
    await this.ctx.transaction(async () => {
      // One multi-row statement (one round trip on PostgreSQL): SQLite numbers the rows of a VALUES
      // list in its order, PostgreSQL those of an unnest (pg-writes.ts), so ids follow the turn's
      // order. Chunks stay far below SQLite's bound-parameter limit (32,766; 5 per row).
      for (let i = 0; i < values.length; i += APPEND_CHUNK) {
        const chunk = values.slice(i, i + APPEND_CHUNK);
        if (this.ctx.dialect === "sqlite") await this.ctx.run(async (db) => this.insertRows(db, chunk, own));
        // PostgreSQL: one chunk travels with the transaction's next statement (the inbox record
        // ended with its reply queued); several run in order, each a statement.
        else if (values.length <= APPEND_CHUNK) await this.ctx.carry(memoryInsert(chunk));
        else await this.ctx.run((db) => pgRows(db, memoryInsert(chunk)));
      }
      await within?.();
    });
    this.compactLater(scope);
  }

  /**
   * SQLite: inserts one scope's rows and, in the same operation, hands them to its cached window,
   * or forgets that window when they may still roll back with a caller's transaction.
   */
  private insertRows(db: Db, rows: AppendRow[], own: boolean): void {
    const inserted = insertSqlite(db, rows);
    const first = rows[0] as AppendRow;
    const key = `${first.userId}\u0000${first.conversationId}`;
    const cache = promptCacheOf(this.ctx);
    if (own) cache.extend(key, inserted, this.ctx.losses());
    else cache.invalidate(key);
  }

  /** Resolves once no automatic compaction started by this object is running (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.compacting.size > 0) await Promise.all(this.compacting.values());
  }

  /** Starts an automatic compaction of `scope` when it passed the threshold; never awaited by a turn. */
  private compactLater(scope: MemoryScope): void {
    const threshold = this.summaryThreshold;
    if (!this.summarizer || threshold === undefined) return;
    const key = `${scope.userId}\u0000${scope.conversationId}`;
    if (this.compacting.has(key)) {
      // A check already running may have read the scope before this append: look again after it.
      this.recheck.add(key);
      return;
    }
    const work = this.compactIfOver(scope, threshold)
      .catch(() => {
        // A failed automatic summary keeps every message; the appended turn is already stored.
      })
      .finally(() => {
        this.compacting.delete(key);
        if (this.recheck.delete(key)) this.compactLater(scope);
      });
    this.compacting.set(key, work);
  }

  private async compactIfOver(scope: MemoryScope, threshold: number): Promise<void> {
    const m = this.t.memoryMessages;
    const { where, orderBy } = this.ordered(scope, asc);
    // More than `threshold` rows: the row at offset `threshold` exists (reads at most that many).
    const over = await this.ctx.run((db) =>
      db
        .select({ id: m.id })
        .from(m)
        .where(where)
        .orderBy(...orderBy)
        .limit(1)
        .offset(threshold),
    );
    if (over.length === 0) return;
    const head = first(
      await this.ctx.run((db) =>
        db
          .select({ id: m.id })
          .from(m)
          .where(where)
          .orderBy(...orderBy)
          .limit(1),
      ),
    );
    if (!head) return;
    // One instance summarizes a given history; the others leave it (the summary moves the head).
    const claim = await new SeenTokens(this.ctx).claim(
      "memory-compaction",
      JSON.stringify([scope.userId, scope.conversationId, head.id]),
      "1",
      this.ctx.now() + COMPACTION_CLAIM_MS,
    );
    if (!claim.claimed) return;
    await this.summarize(scope, { keepRecent: Math.floor(threshold / 2) });
  }

  /** Called inside the operation that rewrites or deletes the scope's rows (prompt-cache.ts). */
  private forgetWindow(scope: MemoryScope): void {
    const { userId, conversationId } = scopeOf(scope);
    promptCacheOf(this.ctx).invalidate(`${userId}\u0000${conversationId}`);
  }

  async clear(scope: MemoryScope): Promise<void> {
    const where = this.where(scope);
    await this.ctx.run((db) => {
      this.forgetWindow(scope);
      return db.delete(this.t.memoryMessages).where(where);
    });
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
      const oldest = this.ordered(scope, asc);
      const head = first(
        await this.ctx.run((db) =>
          db
            .select({ id: this.t.memoryMessages.id })
            .from(this.t.memoryMessages)
            .where(oldest.where)
            .orderBy(...oldest.orderBy)
            .limit(1),
        ),
      );
      if (still !== older.length || head?.id !== firstId) {
        const now = await this.count(scope);
        return { compacted: false, before: now, after: now };
      }
      // The summary takes the first row's id so it stays ahead of the kept messages.
      await this.ctx.run((db) => {
        this.forgetWindow(scope);
        return db
          .update(this.t.memoryMessages)
          .set({ role: "system", body: JSON.stringify(summary) })
          .where(eq(this.t.memoryMessages.id, firstId));
      });
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
