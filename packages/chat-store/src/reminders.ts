// Reminders set from a conversation with the `remind` tool (store-schema step 12). Each is a schedule
// of its own, named `reminder:<id>`, whose ticks are claimed in schedule_ticks like any schedule's.
// A reminder ends `done` (a one-off whose tick was claimed) or `cancelled` (by its user or the
// operator); ended rows stay for `agentsvc schedules list` and for recovering their last tick.
import { and, asc, count, desc, eq, isNull } from "./orm.js";
import type { StoreContext } from "./context.js";
import { requireId } from "./validate.js";

export interface ReminderRow {
  id: number;
  gateway: string;
  thread: string;
  userId: string;
  agent: string;
  text: string;
  /** A one-off reminder's time (epoch ms); null for a recurring one. */
  at: number | null;
  /** A recurring reminder's cron pattern (5 fields, read in `timezone`); null for a one-off. */
  cron: string | null;
  timezone: string;
  /** The routing data of the message that set it (the adapter's `meta`), given back to its ticks. */
  meta: Record<string, unknown> | null;
  createdAt: number;
  endedAt: number | null;
  ended: "done" | "cancelled" | null;
}

export interface NewReminder {
  gateway: string;
  thread: string;
  userId: string;
  agent: string;
  text: string;
  at?: number;
  cron?: string;
  timezone: string;
  meta?: Record<string, unknown>;
}

export class Reminders {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  /**
   * Stores a reminder unless its user already has `max` active ones on this gateway; the count and
   * the insert are one transaction. Returns the new row, or `{ full: count }`.
   */
  async create(r: NewReminder, max: number): Promise<ReminderRow | { full: number }> {
    if ((r.at === undefined) === (r.cron === undefined)) throw new TypeError("a reminder needs at or cron");
    const m = this.t.reminders;
    return this.ctx.transaction(async () => {
      const active = await this.activeCount(r.gateway, r.userId);
      if (active >= max) return { full: active };
      const rows = await this.ctx.run((db) =>
        db
          .insert(m)
          .values({
            gateway: requireId(r.gateway, "gateway"),
            thread: requireId(r.thread, "thread"),
            userId: requireId(r.userId, "userId"),
            agent: requireId(r.agent, "agent"),
            text: r.text,
            at: r.at ?? null,
            cron: r.cron ?? null,
            timezone: r.timezone,
            meta: r.meta ? JSON.stringify(r.meta) : null,
            createdAt: this.ctx.now(),
          })
          .returning(),
      );
      return toReminder(rows[0]!);
    });
  }

  /** Active reminders of one user on one gateway. */
  async activeCount(gateway: string, userId: string): Promise<number> {
    const m = this.t.reminders;
    const rows = await this.ctx.run((db) =>
      db
        .select({ n: count() })
        .from(m)
        .where(and(eq(m.gateway, gateway), eq(m.userId, userId), isNull(m.endedAt))),
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Active reminders of one user in one thread (what "list my reminders" shows), oldest first. */
  async ofUser(gateway: string, thread: string, userId: string): Promise<ReminderRow[]> {
    const m = this.t.reminders;
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(m)
        .where(and(eq(m.gateway, gateway), eq(m.thread, thread), eq(m.userId, userId), isNull(m.endedAt)))
        .orderBy(asc(m.id)),
    );
    return rows.map(toReminder);
  }

  /** Every active reminder (what the scheduler runs), oldest first. */
  async active(): Promise<ReminderRow[]> {
    const m = this.t.reminders;
    const rows = await this.ctx.run((db) =>
      db.select().from(m).where(isNull(m.endedAt)).orderBy(asc(m.id)).limit(100_000),
    );
    return rows.map(toReminder);
  }

  /** Active and ended reminders, newest first (the operator's list). */
  async recent(limit = 500): Promise<ReminderRow[]> {
    const m = this.t.reminders;
    const rows = await this.ctx.run((db) => db.select().from(m).orderBy(desc(m.id)).limit(limit));
    return rows.map(toReminder);
  }

  async get(id: number): Promise<ReminderRow | undefined> {
    const m = this.t.reminders;
    const rows = await this.ctx.run((db) => db.select().from(m).where(eq(m.id, id)));
    return rows[0] && toReminder(rows[0]);
  }

  /**
   * Ends an active reminder. With `owner`, only that user's reminder on that gateway ends (a user
   * cancels their own); false when there is no such active reminder.
   */
  async end(
    id: number,
    how: "done" | "cancelled",
    owner?: { gateway: string; userId: string },
  ): Promise<boolean> {
    const m = this.t.reminders;
    const where = owner
      ? and(eq(m.id, id), isNull(m.endedAt), eq(m.gateway, owner.gateway), eq(m.userId, owner.userId))
      : and(eq(m.id, id), isNull(m.endedAt));
    const rows = await this.ctx.run((db) =>
      db.update(m).set({ endedAt: this.ctx.now(), ended: how }).where(where).returning({ id: m.id }),
    );
    return rows.length > 0;
  }
}

function toReminder(row: {
  id: number;
  gateway: string;
  thread: string;
  userId: string;
  agent: string;
  text: string;
  at: number | null;
  cron: string | null;
  timezone: string;
  meta: string | null;
  createdAt: number;
  endedAt: number | null;
  ended: "done" | "cancelled" | null;
}): ReminderRow {
  return {
    ...row,
    id: Number(row.id),
    at: row.at === null ? null : Number(row.at),
    meta: row.meta === null ? null : (JSON.parse(row.meta) as Record<string, unknown>),
    createdAt: Number(row.createdAt),
    endedAt: row.endedAt === null ? null : Number(row.endedAt),
  };
}
