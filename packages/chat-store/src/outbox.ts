// Durable outbox for gateway replies, approval requests and decision updates. A row is written in
// the same transaction that ends the turn it belongs to; a sender drains it in per-thread order
// with retry, and a row is `sent` or `dead` exactly once. `idemKey` is unique: writing the same
// piece twice keeps one row.
import type { StoreContext } from "./context.js";
import { and, asc, count, eq, gt, inArray, lt, lte, min, sql } from "./orm.js";
import { statusEither, statusIn } from "./status-in.js";
import type { OutboxKind, OutboxStatus, outbox } from "@agentsvc/store-schema/sqlite";
import { requireId, toJson } from "./validate.js";
import { insertOutbox, outboxSent } from "./sqlite-writes.js";
import { type SentMark, sentBatch } from "./sent-batch.js";
import { fencedDueError, type RoleFence } from "./outbox-fence.js";
import { dueQuery, nextDueQuery, type OutboxShare } from "./outbox-share.js";
import * as pg from "./pg-writes.js";
import type { StatementBatch } from "./statement-batch.js";

export type { OutboxKind, OutboxStatus };

export interface OutboxInput {
  gateway: string;
  thread: string;
  /** Unique per piece: the same key twice is one row (e.g. `<gateway>:<inbox id>:<piece>`). */
  idemKey: string;
  kind: OutboxKind;
  /** JSON-serialisable body the sender hands the gateway. */
  payload: unknown;
  /** Earliest send time (ms epoch). Default now. */
  notBefore?: number;
  /** W3C `traceparent` of the work that wrote the piece; its send continues that trace. */
  traceparent?: string;
}

export interface OutboxRecord {
  id: number;
  gateway: string;
  thread: string;
  idemKey: string;
  kind: OutboxKind;
  payload: unknown;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  platformId: string | null;
  createdAt: number;
  finishedAt: number | null;
  traceparent: string | null;
}

export interface OutboxFilter {
  gateway?: string;
  /** Default pending and dead. */
  statuses?: readonly OutboxStatus[];
  /** Default 1000. */
  limit?: number;
}

export type OutboxValues = typeof outbox.$inferInsert;

/** The rows of `items`, checked, in order. */
export function outboxValues(items: readonly OutboxInput[], now: number): OutboxValues[] {
  return items.map((item) => ({
    gateway: requireId(item.gateway, "gateway"),
    thread: requireId(item.thread, "thread", 1024),
    idemKey: requireId(item.idemKey, "idemKey", 1024),
    kind: item.kind,
    payload: toJson(item.payload, "payload"),
    status: "pending" as const,
    nextAttemptAt: item.notBefore ?? now,
    createdAt: now,
    traceparent: item.traceparent ?? null,
  }));
}

function toRecord(row: typeof outbox.$inferSelect): OutboxRecord {
  return { ...row, payload: JSON.parse(row.payload) as unknown };
}

export class Outbox {
  private get t() {
    return this.ctx.tables;
  }

  /** PostgreSQL: concurrent `markSent` calls outside a transaction share one UPDATE (see sent-batch.ts). */
  readonly #sent: StatementBatch<SentMark, boolean> | undefined;

  constructor(private readonly ctx: StoreContext) {
    if (ctx.dialect !== "postgres") return;
    this.#sent = sentBatch(async (marks) =>
      pg.ids(await this.ctx.run((db) => pg.pgRows(db, pg.outboxSent(marks, this.ctx.now())))),
    );
  }

  /** Inserts pieces in order; a piece whose idemKey exists already is skipped. Returns new row ids. */
  async enqueue(items: readonly OutboxInput[]): Promise<number[]> {
    const values = outboxValues(items, this.ctx.now());
    // PostgreSQL: one statement (one round trip; unnest yields the rows in order, pg-writes.ts).
    if (this.ctx.dialect === "postgres") {
      if (values.length === 0) return [];
      const rows = await this.ctx.run((db) => pg.pgRows(db, pg.outboxInsert(values, true)));
      return pg.ids(rows).sort((a, b) => a - b);
    }
    const ids: number[] = [];
    for (const row of values) {
      const id = await this.ctx.run(async (db) => insertOutbox(db, row));
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  async get(id: number): Promise<OutboxRecord | undefined> {
    const rows = await this.ctx.run((db) => db.select().from(this.t.outbox).where(eq(this.t.outbox.id, id)));
    return rows[0] && toRecord(rows[0]);
  }

  /**
   * Pending rows due by `now`, each the oldest pending row of its (gateway, thread): a later piece
   * of a thread never overtakes an earlier one that is still being retried. Read from
   * `outbox_heads` (one row a thread, kept by triggers on `outbox`, store step 13) in head order,
   * so the cost follows the threads read, not the pending rows behind their heads (#45). `fence`
   * (PostgreSQL, several instances): read only while its session holds the sender's role locks,
   * else a RoleNotHeldError (outbox-fence.ts); `share`: only the heads of those partitions
   * (outbox-share.ts). One instance (SQLite) has no roles to check and no share: it ignores both.
   */
  async due(now: number, limit = 32, fence?: RoleFence, share?: OutboxShare): Promise<OutboxRecord[]> {
    if (this.ctx.dialect === "postgres") {
      const q = dueQuery(now, limit, fence, share);
      const rows = await this.ctx
        .run((db) => pg.pgRows(db, q))
        .catch((err: unknown) => {
          throw fence ? fencedDueError(err, fence) : err;
        });
      return rows.map((row) => toRecord(pg.outboxRow(row)));
    }
    const o = this.t.outbox;
    const h = this.t.outboxHeads;
    const rows = await this.ctx.run((db) => {
      const heads = db
        .select({ id: h.headId })
        .from(h)
        .where(lte(h.nextAttemptAt, now))
        .orderBy(asc(h.headId))
        .limit(limit);
      // The heads first, then their rows by primary key, in shapes no planner turns into a join
      // that scans outbox (a hash join did on both dialects): SQLite reads `rowid IN (...)` as one
      // lookup per listed id; PostgreSQL evaluates `ARRAY(...)` once as an init plan (pg-writes.ts).
      return db.select().from(o).where(inArray(o.id, heads)).orderBy(asc(o.id));
    });
    return rows.map(toRecord);
  }

  /**
   * The earliest `nextAttemptAt` among thread heads, or undefined when nothing is pending. `share`
   * (PostgreSQL, several instances): only the heads of those partitions, as in `due`; SQLite (one
   * instance) ignores it.
   */
  async nextDueAt(share?: OutboxShare): Promise<number | undefined> {
    if (this.ctx.dialect === "postgres") {
      const rows = await this.ctx.run((db) => pg.pgRows(db, nextDueQuery(share)));
      return rows[0]?.at == null ? undefined : Number(rows[0].at);
    }
    const h = this.t.outboxHeads;
    const rows = await this.ctx.run((db) => db.select({ at: min(h.nextAttemptAt) }).from(h));
    return rows[0]?.at ?? undefined;
  }

  /** pending -> sent. False when the row was not pending. */
  markSent(id: number, platformId?: string): Promise<boolean> {
    if (this.#sent && !this.ctx.inTransaction())
      return this.#sent.add({ id, platformId: platformId ?? null });
    if (this.ctx.dialect === "sqlite")
      return this.ctx.run(async (db) => outboxSent(db, id, platformId ?? null, this.ctx.now()));
    return this.finish(id, {
      status: "sent",
      attempts: sql`${this.t.outbox.attempts} + 1`,
      platformId: platformId ?? null,
      finishedAt: this.ctx.now(),
    });
  }

  /** A failed attempt: counted, retried at `nextAttemptAt`. */
  markRetry(id: number, nextAttemptAt: number, error: string): Promise<boolean> {
    return this.finish(id, {
      attempts: sql`${this.t.outbox.attempts} + 1`,
      nextAttemptAt,
      lastError: error.slice(0, 2000),
    });
  }

  /** pending -> dead: given up after the attempt bound (or a permanent error). */
  markDead(id: number, error: string): Promise<boolean> {
    return this.finish(id, {
      status: "dead",
      attempts: sql`${this.t.outbox.attempts} + 1`,
      lastError: error.slice(0, 2000),
      finishedAt: this.ctx.now(),
    });
  }

  /**
   * The platform reported afterwards that a piece it accepted never arrived (a delivery-status
   * webhook); matched by gateway, thread and the platform's message id. sent -> dead, or, with
   * `retry` and attempts left (`attempts < retry.maxAttempts`), sent -> pending at `retry.at`.
   */
  async markUndelivered(
    gateway: string,
    thread: string,
    platformId: string,
    error: string,
    retry?: { at: number; maxAttempts: number },
  ): Promise<boolean> {
    const o = this.t.outbox;
    const sent = and(
      eq(o.gateway, gateway),
      eq(o.thread, thread),
      eq(o.platformId, platformId),
      eq(o.status, "sent"),
    );
    const [row] = await this.ctx.run((db) =>
      db.select({ id: o.id, attempts: o.attempts }).from(o).where(sent).limit(1),
    );
    if (!row) return false;
    const lastError = error.slice(0, 2000);
    const set =
      retry && row.attempts < retry.maxAttempts
        ? { status: "pending", nextAttemptAt: retry.at, platformId: null, finishedAt: null, lastError }
        : { status: "dead", finishedAt: this.ctx.now(), lastError };
    const rows = await this.ctx.run((db) =>
      db
        .update(o)
        .set(set as typeof outbox.$inferInsert)
        .where(and(eq(o.id, row.id), eq(o.status, "sent")))
        .returning({ id: o.id }),
    );
    return rows.length > 0;
  }

  /** Updates a row that is still pending; false when it was not. */
  private async finish(
    id: number,
    set: Partial<Record<keyof typeof outbox.$inferInsert, unknown>>,
  ): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .update(this.t.outbox)
        .set(set as typeof outbox.$inferInsert)
        .where(and(eq(this.t.outbox.id, id), eq(this.t.outbox.status, "pending")))
        .returning({ id: this.t.outbox.id }),
    );
    return rows.length > 0;
  }

  /** Rows of one gateway thread with id > `after`, oldest first (a pull-driven channel reads these). */
  async list(gateway: string, thread: string, after = 0, limit = 1000): Promise<OutboxRecord[]> {
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(this.t.outbox)
        .where(
          and(
            eq(this.t.outbox.gateway, gateway),
            eq(this.t.outbox.thread, thread),
            gt(this.t.outbox.id, after),
          ),
        )
        .orderBy(asc(this.t.outbox.id))
        .limit(limit),
    );
    return rows.map(toRecord);
  }

  /**
   * For the operator (`agentsvc outbox list`): pieces of the given statuses (default pending and
   * dead), optionally of one gateway, oldest first.
   */
  async browse(filter: OutboxFilter = {}): Promise<OutboxRecord[]> {
    const statuses = filter.statuses ?? ["pending", "dead"];
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(this.t.outbox)
        .where(
          and(
            statusEither(this.t.outbox.status, statuses),
            filter.gateway === undefined ? undefined : eq(this.t.outbox.gateway, filter.gateway),
          ),
        )
        .orderBy(asc(this.t.outbox.id))
        .limit(filter.limit ?? 1000),
    );
    return rows.map(toRecord);
  }

  /**
   * dead -> pending, due now, attempts from zero (the reason stays until the next attempt). A
   * running server's sender finds it on its next look at the queue. False when it was not dead.
   */
  async requeue(id: number): Promise<boolean> {
    return (await this.#requeueWhere(eq(this.t.outbox.id, id))).length > 0;
  }

  /** Every dead piece (or one gateway's) back in the queue; returns their ids, oldest first. */
  async requeueDead(filter: { gateway?: string } = {}): Promise<number[]> {
    const ids = await this.#requeueWhere(
      filter.gateway === undefined ? undefined : eq(this.t.outbox.gateway, filter.gateway),
    );
    return ids.sort((a, b) => a - b);
  }

  async #requeueWhere(where: ReturnType<typeof eq> | undefined): Promise<number[]> {
    const rows = await this.ctx.run((db) =>
      db
        .update(this.t.outbox)
        .set({
          status: "pending",
          attempts: 0,
          nextAttemptAt: this.ctx.now(),
          finishedAt: null,
          platformId: null,
        } as typeof outbox.$inferInsert)
        .where(and(statusIn(this.t.outbox.status, ["dead"]), where))
        .returning({ id: this.t.outbox.id }),
    );
    return rows.map((r) => r.id);
  }

  /** Deletes a pending or dead piece for good; false for a sent or unknown one. */
  async drop(id: number): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .delete(this.t.outbox)
        .where(and(eq(this.t.outbox.id, id), inArray(this.t.outbox.status, ["pending", "dead"])))
        .returning({ id: this.t.outbox.id }),
    );
    return rows.length > 0;
  }

  /** Pending and dead pieces counted per gateway (the metrics' outbox gauges). */
  async countsByGateway(): Promise<{ gateway: string; status: OutboxStatus; count: number }[]> {
    const o = this.t.outbox;
    const rows = await this.ctx.run((db) =>
      db
        .select({ gateway: o.gateway, status: o.status, count: count() })
        .from(o)
        .where(statusEither(o.status, ["pending", "dead"]))
        .groupBy(o.gateway, o.status),
    );
    return rows.map((r) => ({
      gateway: r.gateway,
      status: r.status as OutboxStatus,
      count: Number(r.count),
    }));
  }

  async countByStatus(status: OutboxStatus): Promise<number> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ n: count() })
        .from(this.t.outbox)
        .where(statusIn(this.t.outbox.status, [status])),
    );
    return rows[0]?.n ?? 0;
  }

  /** Housekeeping: deletes sent and dead rows finished before `before` (ms epoch). */
  async prune(before: number): Promise<number> {
    const rows = await this.ctx.run((db) =>
      db
        .delete(this.t.outbox)
        .where(and(inArray(this.t.outbox.status, ["sent", "dead"]), lt(this.t.outbox.finishedAt, before)))
        .returning({ id: this.t.outbox.id }),
    );
    return rows.length;
  }
}
