// The conversation index: memory can read/write/clear one bucket but cannot enumerate them, so the
// store keeps one row per conversationId with its owner, title, activity time and a display count.
import { randomUUID } from "node:crypto";
import { AgentsvcError } from "@agentsvc/agent-core";
import { and, desc, eq, sql } from "./orm.js";
import type { StoreContext } from "./context.js";
import { first, lockRow, one } from "./rows.js";
import { requireId } from "./validate.js";

export const TITLE_MAX_CHARS = 60;

export interface ConversationRecord {
  conversationId: string;
  userId: string;
  /** Null until a title is given or the first user message provides one. */
  title: string | null;
  messageCount: number;
  createdAt: number;
  /** Milliseconds since the epoch; moves on every turn. */
  updatedAt: number;
}

/** One line, whitespace collapsed, at most 60 characters (code points); undefined when blank. */
export function normalizeTitle(text: string): string | undefined {
  const line = text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (line === "") return undefined;
  return Array.from(line).slice(0, TITLE_MAX_CHARS).join("").trimEnd();
}

export interface ConversationPage {
  conversations: ConversationRecord[];
  /** Present when older rows remain: pass it as `cursor` for the next page. */
  nextCursor?: string;
}

function parseCursor(cursor: string): { updatedAt: number; rowid: number } {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(cursor);
  if (!m) {
    throw new AgentsvcError(
      "invalid_cursor",
      `cursor: expected a nextCursor from a previous page (got ${JSON.stringify(cursor.slice(0, 40))})`,
      400,
    );
  }
  return { updatedAt: Number(m[1]), rowid: Number(m[2]) };
}

function forbidden(conversationId: string): AgentsvcError {
  return new AgentsvcError("forbidden", `conversation "${conversationId}" belongs to another user`, 403);
}

export class Conversations {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  get(conversationId: string): Promise<ConversationRecord | undefined> {
    return this.ctx.run(async (db) =>
      first(
        await db
          .select()
          .from(this.t.conversations)
          .where(eq(this.t.conversations.conversationId, conversationId)),
      ),
    );
  }

  /**
   * The check to run BEFORE a turn starts. Returns the row when the caller owns it, undefined when
   * no row exists yet; throws AgentsvcError 403 `forbidden` when another user owns it.
   */
  async assertCanUse(userId: string, conversationId: string): Promise<ConversationRecord | undefined> {
    requireId(userId, "userId");
    requireId(conversationId, "conversationId");
    const row = await this.get(conversationId);
    if (row && row.userId !== userId) throw forbidden(conversationId);
    return row;
  }

  /** Newest activity first (index on user_id, updated_at). */
  list(userId: string, options: { limit?: number } = {}): Promise<ConversationRecord[]> {
    return this.ctx.run(async (db) => {
      const query = db
        .select()
        .from(this.t.conversations)
        .where(eq(this.t.conversations.userId, userId))
        .orderBy(desc(this.t.conversations.updatedAt), sql`rowid DESC`);
      return options.limit === undefined ? await query : await query.limit(options.limit);
    });
  }

  /**
   * One page of `list`: at most `limit` rows after `cursor` (a previous page's `nextCursor`), and a
   * `nextCursor` when older rows remain. Keyset paging on (updatedAt, rowid): a page costs the same
   * however deep it is, and rows that move to the top meanwhile are not repeated further down.
   * A cursor that is not one of ours throws 400 `invalid_cursor`. (On PostgreSQL `rowid` is a
   * sequence column of the table, so the same SQL holds.)
   */
  async page(userId: string, options: { limit: number; cursor?: string }): Promise<ConversationPage> {
    const after = options.cursor === undefined ? undefined : parseCursor(options.cursor);
    const older = after
      ? // A row-value comparison lets SQLite seek in the (user_id, updated_at) index (rowid is its tail).
        sql`(${this.t.conversations.updatedAt}, rowid) < (${after.updatedAt}, ${after.rowid})`
      : undefined;
    const rows = await this.ctx.run((db) =>
      db
        .select({ row: this.t.conversations, rowid: sql<number>`rowid`.mapWith(Number) })
        .from(this.t.conversations)
        .where(
          older
            ? and(eq(this.t.conversations.userId, userId), older)
            : eq(this.t.conversations.userId, userId),
        )
        .orderBy(desc(this.t.conversations.updatedAt), sql`rowid DESC`)
        .limit(options.limit + 1),
    );
    const shown = rows.slice(0, options.limit);
    const last = shown[shown.length - 1];
    return {
      conversations: shown.map((r) => r.row),
      ...(rows.length > options.limit && last ? { nextCursor: `${last.row.updatedAt}.${last.rowid}` } : {}),
    };
  }

  /** Creates a conversation with a minted id (or the given one) and an optional title. */
  create(input: { userId: string; title?: string; conversationId?: string }): Promise<ConversationRecord> {
    const userId = requireId(input.userId, "userId");
    const conversationId = input.conversationId ?? randomUUID();
    requireId(conversationId, "conversationId");
    const title = input.title === undefined ? null : this.titleOrThrow(input.title);
    const now = this.ctx.now();
    return this.ctx.transaction(async () => {
      const existing = await this.get(conversationId);
      if (existing) {
        if (existing.userId !== userId) throw forbidden(conversationId);
        throw new AgentsvcError("conflict", `conversation "${conversationId}" already exists`, 409);
      }
      return this.ctx.run(async (db) =>
        one(
          await db
            .insert(this.t.conversations)
            .values({ conversationId, userId, title, messageCount: 0, createdAt: now, updatedAt: now })
            .returning(),
        ),
      );
    });
  }

  /**
   * Index upkeep after a persisted turn: creates the row on first use, sets the title from the
   * user's message only while no title exists, moves updatedAt and adds 2 per turn. Refuses
   * (403) when another user owns the id — the owner never changes.
   */
  recordTurn(input: {
    userId: string;
    conversationId: string;
    userMessage?: string;
    /** Turns persisted at once (batch); default 1. */
    turns?: number;
  }): Promise<ConversationRecord> {
    const userId = requireId(input.userId, "userId");
    const conversationId = requireId(input.conversationId, "conversationId");
    const turns = input.turns ?? 1;
    if (!Number.isInteger(turns) || turns < 0) {
      throw new AgentsvcError("invalid_turns", `turns: expected a non-negative integer (got ${turns})`);
    }
    const title = input.userMessage === undefined ? undefined : normalizeTitle(input.userMessage);
    const now = this.ctx.now();
    return this.ctx.transaction(async () => {
      // Inserted when absent; a concurrent first turn (another instance) meets the existing row.
      const created = await this.ctx.run(async (db) =>
        first(
          await db
            .insert(this.t.conversations)
            .values({
              conversationId,
              userId,
              title: title ?? null,
              messageCount: 2 * turns,
              createdAt: now,
              updatedAt: now,
            })
            .onConflictDoNothing({ target: this.t.conversations.conversationId })
            .returning(),
        ),
      );
      if (created) return created;
      const existing = await this.ctx.run(async (db) =>
        one(
          await lockRow(
            db,
            this.t.conversations,
            eq(this.t.conversations.conversationId, conversationId),
            this.ctx,
          ),
        ),
      );
      if (existing.userId !== userId) throw forbidden(conversationId);
      return this.ctx.run(async (db) =>
        one(
          await db
            .update(this.t.conversations)
            .set({
              messageCount: sql`${this.t.conversations.messageCount} + ${2 * turns}`,
              updatedAt: Math.max(now, existing.updatedAt),
              ...(existing.title === null && title !== undefined ? { title } : {}),
            })
            .where(eq(this.t.conversations.conversationId, conversationId))
            .returning(),
        ),
      );
    });
  }

  /** Sets the title; later turns never overwrite it. 404 when absent, 403 when not the owner's. */
  async rename(userId: string, conversationId: string, title: string): Promise<ConversationRecord> {
    requireId(userId, "userId");
    requireId(conversationId, "conversationId");
    const clean = this.titleOrThrow(title);
    const row = await this.assertCanUse(userId, conversationId);
    if (!row) throw new AgentsvcError("not_found", `conversation "${conversationId}" does not exist`, 404);
    const updated = await this.ctx.run(async (db) =>
      first(
        await db
          .update(this.t.conversations)
          .set({ title: clean })
          .where(
            and(
              eq(this.t.conversations.conversationId, conversationId),
              eq(this.t.conversations.userId, userId),
            ),
          )
          .returning(),
      ),
    );
    if (!updated)
      throw new AgentsvcError("not_found", `conversation "${conversationId}" does not exist`, 404);
    return updated;
  }

  /** `/clear`: the display counter goes back to 0 (memory is cleared by the caller). */
  async resetCount(userId: string, conversationId: string): Promise<boolean> {
    await this.assertCanUse(userId, conversationId);
    return this.ctx.run(
      async (db) =>
        (
          await db
            .update(this.t.conversations)
            .set({ messageCount: 0 })
            .where(
              and(
                eq(this.t.conversations.conversationId, conversationId),
                eq(this.t.conversations.userId, userId),
              ),
            )
            .returning({ id: this.t.conversations.conversationId })
        ).length > 0,
    );
  }

  /** Deletes the index row only; the caller also clears the memory scope. False when absent. */
  async delete(userId: string, conversationId: string): Promise<boolean> {
    await this.assertCanUse(userId, conversationId);
    return this.ctx.run(
      async (db) =>
        (
          await db
            .delete(this.t.conversations)
            .where(
              and(
                eq(this.t.conversations.conversationId, conversationId),
                eq(this.t.conversations.userId, userId),
              ),
            )
            .returning({ id: this.t.conversations.conversationId })
        ).length > 0,
    );
  }

  private titleOrThrow(title: unknown): string {
    const clean = typeof title === "string" ? normalizeTitle(title) : undefined;
    if (clean === undefined) {
      throw new AgentsvcError("invalid_title", "title: expected a non-empty string");
    }
    return clean;
  }
}
