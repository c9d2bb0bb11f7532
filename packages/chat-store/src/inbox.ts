// Durable inbound queue for gateways: a message is deduplicated and recorded here before the
// platform is acknowledged, and anything unfinished is picked up again after a restart.
import type { AttachmentRef, InboxRecord, RunOrigin } from "@agentsvc/agent-core";
import { and, asc, count, eq, inArray, lt } from "./orm.js";
import { unfinishedIn } from "./status-in.js";
import type { Db, StoreContext } from "./context.js";
import { type Outbox, type OutboxInput, outboxValues } from "./outbox.js";
import type { InboxStatus, inbox } from "@agentsvc/store-schema/sqlite";
import { type AcceptResult, type AcceptRow, acceptBatch, type RecordAnnounce } from "./accept-batch.js";
import { StatementBatch } from "./statement-batch.js";
import { first, lockRow } from "./rows.js";
import { requireId, toJson } from "./validate.js";
import { acceptInbox, inboxFinished, inboxRunning } from "./sqlite-writes.js";
import { fenceError, fencedCount, type HeldLock } from "./lock-fence.js";
import * as pg from "./pg-writes.js";
import { groupable, type TurnEnd, TurnEndBatch } from "./turn-end-batch.js";

export type { InboxRecord, InboxStatus };

export type { AcceptResult, RecordAnnounce };

/** Calls one grouped statement serves (its parameters are arrays: one statement text for any number). */
const MAX_GROUPED = 200;

interface ThreadKey {
  gateway: string;
  thread: string;
}

function toRecord(row: typeof inbox.$inferSelect): InboxRecord {
  const { attachments, ...rest } = row;
  const record: InboxRecord = { ...rest, origin: JSON.parse(rest.origin) as RunOrigin };
  if (attachments) record.attachments = JSON.parse(attachments) as AttachmentRef[];
  return record;
}

/** PostgreSQL: one turn's end in a statement of its own (with its fence when it has a lock). */
async function endAlone(db: Db, end: TurnEnd): Promise<boolean> {
  const { lock, carried, pieces, running } = end;
  const ended = pg.inboxEnd(end.id, end.status, end.at);
  const next = running === undefined ? [] : [pg.inboxRunning([running], end.at)];
  if (!lock && carried.length === 0 && pieces.length === 0 && next.length === 0)
    return (await pg.pgRows(db, ended)).length > 0;
  // Different tables, or other rows of inbox (the next record, not this one), so the order
  // PostgreSQL runs the WITH clauses in changes nothing.
  const writes = [...carried, ...(pieces.length > 0 ? [pg.outboxInsert(pieces)] : []), ...next];
  const statement = pg.withClauses(writes, ended, lock ? fencedCount(lock) : pg.ENDED_COUNT);
  const rows = await pg
    .pgRows(db, statement)
    .catch((error: unknown) => Promise.reject(lock ? fenceError(error, lock) : error));
  return Number(rows[0]?.n ?? 0) > 0;
}

export class Inbox {
  private get t() {
    return this.ctx.tables;
  }

  /** PostgreSQL: concurrent accepts outside a transaction share one INSERT (see accept-batch.ts). */
  readonly #batch: StatementBatch<AcceptRow, AcceptResult> | undefined;

  /** PostgreSQL: concurrent `markRunning` calls outside a transaction share one UPDATE. */
  readonly #running: StatementBatch<number, boolean> | undefined;

  /** PostgreSQL: turn ends that each commit on their own, grouped into one statement. */
  readonly #ends: TurnEndBatch | undefined;

  /** PostgreSQL: concurrent `queued` reads outside a transaction share one SELECT. */
  readonly #queued: StatementBatch<ThreadKey, InboxRecord[]> | undefined;

  /** PostgreSQL: concurrent `unfinishedOf` reads outside a transaction share one SELECT ... FOR UPDATE. */
  readonly #unfinished: StatementBatch<ThreadKey, InboxRecord[]> | undefined;

  /** The records of several threads in one of `statuses`, oldest first, one list per thread (PostgreSQL). */
  async #ofThreads(
    keys: ThreadKey[],
    statuses: ("queued" | "running")[],
    lock: boolean,
  ): Promise<InboxRecord[][]> {
    const rows = await this.ctx.run((db) => pg.pgRows(db, pg.inboxOfThreads(keys, statuses, lock)));
    const records = rows.map((row) => toRecord(pg.inboxRecordRow(row))).sort((a, b) => a.id - b.id);
    // One pass by thread: a filter per key was keys x records comparisons (200 x 200 in a full group).
    const byThread = new Map<string, Map<string, InboxRecord[]>>();
    for (const r of records) {
      let threads = byThread.get(r.gateway);
      if (!threads) {
        threads = new Map();
        byThread.set(r.gateway, threads);
      }
      const list = threads.get(r.thread);
      if (list) list.push(r);
      else threads.set(r.thread, [r]);
    }
    // Each caller gets its own array (the same thread asked twice in a group: two lists).
    return keys.map((k) => byThread.get(k.gateway)?.get(k.thread)?.slice() ?? []);
  }

  constructor(
    private readonly ctx: StoreContext,
    private readonly outbox: Outbox,
  ) {
    if (ctx.dialect === "postgres") {
      this.#running = new StatementBatch(async (records) => {
        const moved = new Set(await this.setRunning(records));
        // The same id twice: the first caller moved it, the second finds it running.
        return records.map((id) => moved.delete(id));
      }, MAX_GROUPED);
      this.#ends = new TurnEndBatch(endAlone);
      this.#queued = new StatementBatch((keys) => this.#ofThreads(keys, ["queued"], false), MAX_GROUPED);
      // Locked in id order (FOR UPDATE above the sort), so two instances' groups never wait on each other in a circle.
      this.#unfinished = new StatementBatch(
        (keys) => this.#ofThreads(keys, ["queued", "running"], true),
        MAX_GROUPED,
      );
      this.#batch = acceptBatch(async (rows) =>
        (await this.ctx.express((db) => pg.pgRows(db, pg.inboxAccept(rows)))).map((r) => ({
          id: Number(r.id),
          gateway: r.gateway as string,
          dedupKey: r.dedup_key as string,
          ...(r.announced === true ? { announced: true } : {}),
        })),
      );
    }
  }

  /**
   * Atomic: one row per (gateway, dedupKey), ever; a repeat is reported as a duplicate. Answered
   * once the row is committed (or, inside a transaction, written in it). `announce` (PostgreSQL,
   * several instances): the row is announced to its thread's holder by the INSERT itself when a
   * session holds the thread's lock (answered `announced`), instead of by a lock statement of the
   * recorder's after it (pg-writes.ts: its own instance's take in flight is announced to it too).
   */
  async accept(
    input: {
      gateway: string;
      dedupKey: string;
      thread: string;
      text: string;
      origin: RunOrigin;
      attachments?: AttachmentRef[];
    },
    options?: { announce?: RecordAnnounce | undefined },
  ): Promise<AcceptResult> {
    const gateway = requireId(input.gateway, "gateway");
    const dedupKey = requireId(input.dedupKey, "dedupKey", 1024);
    const thread = requireId(input.thread, "thread", 1024);
    if (typeof input.text !== "string") throw new TypeError("this.t.inbox.accept: text must be a string");
    const origin = toJson(input.origin, "origin");
    const values: AcceptRow = {
      gateway,
      dedupKey,
      thread,
      text: input.text,
      origin,
      status: "queued",
      receivedAt: this.ctx.now(),
      attachments: input.attachments?.length ? toJson(input.attachments, "attachments") : null,
    };
    if (this.ctx.dialect === "sqlite") {
      const id = await this.ctx.run(async (db) => acceptInbox(db, values));
      return id === undefined ? { accepted: false, duplicate: true } : { accepted: true, id };
    }
    if (options?.announce) values.announce = options.announce;
    if (this.#batch && !this.ctx.inTransaction()) return this.#batch.add(values);
    const [row] = await this.ctx.run((db) => pg.pgRows(db, pg.inboxAccept([values])));
    if (!row) return { accepted: false, duplicate: true };
    return row.announced === true
      ? { accepted: true, id: Number(row.id), announced: true }
      : { accepted: true, id: Number(row.id) };
  }

  async get(id: number): Promise<InboxRecord | undefined> {
    const row = first(
      await this.ctx.run((db) => db.select().from(this.t.inbox).where(eq(this.t.inbox.id, id))),
    );
    return row && toRecord(row);
  }

  /** queued -> running. False when the row is not queued (already taken or finished). */
  async markRunning(id: number): Promise<boolean> {
    if (this.#running && !this.ctx.inTransaction()) return this.#running.add(id);
    if (this.ctx.dialect === "sqlite")
      return this.ctx.run(async (db) => inboxRunning(db, id, this.ctx.now()));
    return (await this.setRunning([id])).length > 0;
  }

  /** PostgreSQL: queued -> running for the records `records`; the ids it moved. */
  private async setRunning(records: number[]): Promise<number[]> {
    return pg.ids(await this.ctx.run((db) => pg.pgRows(db, pg.inboxRunning(records, this.ctx.now()))));
  }

  /** queued|running -> done|rejected|failed. False when already finished or unknown. */
  markDone(id: number, status: "done" | "rejected" | "failed"): Promise<boolean> {
    return this.finish(id, status, []);
  }

  /**
   * `markDone`, and `reply`'s pieces queued in the outbox as `Outbox.enqueue` does (by idemKey).
   * On PostgreSQL one statement, taking with it the writes its transaction carries (a turn's
   * messages, `StoreContext.carry`). `lock` (PostgreSQL): the statement checks, once the record is
   * locked, that this session advisory lock is still held, and fails whole with a
   * `LockNotHeldError` when it is not (lock-fence.ts). `last`: nothing more is written in the
   * caller's transaction: with nothing sent in it yet, the statement commits on its own (no BEGIN,
   * no COMMIT: a turn ends in one round trip). `running`: the thread's next record, queued -> running
   * with it (its turn starts as this one ends; on PostgreSQL in the same statement, where a mark of
   * its own was a statement per queued turn). On PostgreSQL, an end that commits on its own shares
   * its statement with the ends of other threads' turns arriving while one is in flight
   * (turn-end-batch.ts); each is answered, or refused, as with a statement of its own.
   */
  async finish(
    id: number,
    status: "done" | "rejected" | "failed",
    reply: readonly OutboxInput[],
    options: { lock?: HeldLock; last?: boolean; running?: number } = {},
  ): Promise<boolean> {
    const { lock, running } = options;
    if (status !== "done" && status !== "rejected" && status !== "failed") {
      throw new TypeError(
        `this.t.inbox.markDone: status must be done, rejected or failed (got ${String(status)})`,
      );
    }
    if (lock && this.ctx.dialect !== "postgres")
      throw new TypeError(
        "inbox.finish: a lock fence is checked in the server's lock manager: PostgreSQL only",
      );
    const pieces = outboxValues(reply, this.ctx.now());
    if (this.ctx.dialect === "postgres")
      return this.ctx.runCarrying(
        async (db, carried, alone) => {
          const end: TurnEnd = { id, status, at: this.ctx.now(), carried, pieces, lock, running };
          // Committing on its own: it may share a statement with other turns' ends (turn-end-batch.ts).
          if (alone && this.#ends && groupable(end)) return this.#ends.add(db, end);
          return endAlone(db, end);
        },
        { last: options.last === true },
      );
    const moved = await this.ctx.run(async (db) => inboxFinished(db, id, status, this.ctx.now()));
    // Through enqueue: on SQLite the one path a reply row is written (and refused, as a full disk would).
    if (pieces.length > 0) await this.outbox.enqueue(reply);
    if (running !== undefined) await this.ctx.run(async (db) => inboxRunning(db, running, this.ctx.now()));
    return moved;
  }

  /** Queued or running, oldest first: what a restart must pick up again. */
  async unfinished(): Promise<InboxRecord[]> {
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(this.t.inbox)
        .where(unfinishedIn(this.t.inbox, ["queued", "running"]))
        .orderBy(asc(this.t.inbox.id)),
    );
    return rows.map(toRecord);
  }

  /**
   * Queued or running records of one thread, oldest first, read in a transaction of their own that
   * locks them (`FOR UPDATE` on PostgreSQL): a turn of that thread committing elsewhere right now
   * finishes first, so a record it finished is not returned (what an instance taking the thread over
   * reads).
   */
  async unfinishedOf(gateway: string, thread: string): Promise<InboxRecord[]> {
    // PostgreSQL: a lone SELECT ... FOR UPDATE is its own transaction and waits for the same row
    // locks (then re-reads the rows a committed update changed): one round trip instead of three,
    // shared by the threads taken at the same time.
    if (this.#unfinished && !this.ctx.inTransaction()) return this.#unfinished.add({ gateway, thread });
    const read = () =>
      this.ctx.run((db) =>
        lockRow(db, this.t.inbox, this.ofThread(gateway, thread, ["queued", "running"]), this.ctx),
      );
    const rows = await this.ctx.transaction(read);
    return rows.map(toRecord).sort((a, b) => a.id - b.id);
  }

  /** Queued messages of one thread, oldest first. */
  async queued(gateway: string, thread: string): Promise<InboxRecord[]> {
    if (this.#queued && !this.ctx.inTransaction()) return this.#queued.add({ gateway, thread });
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(this.t.inbox)
        .where(this.ofThread(gateway, thread, ["queued"]))
        .orderBy(asc(this.t.inbox.id)),
    );
    return rows.map(toRecord);
  }

  async countQueued(gateway: string, thread: string): Promise<number> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ n: count() })
        .from(this.t.inbox)
        .where(this.ofThread(gateway, thread, ["queued"])),
    );
    return rows[0]?.n ?? 0;
  }

  /** The records of one thread in one of `statuses` (literals: partial indexes, status-in.ts). */
  private ofThread(gateway: string, thread: string, statuses: ("queued" | "running")[]) {
    return and(
      eq(this.t.inbox.gateway, gateway),
      eq(this.t.inbox.thread, thread),
      unfinishedIn(this.t.inbox, statuses),
    );
  }

  /**
   * Housekeeping: deletes finished rows received before `before` (ms epoch). Their dedup keys are
   * forgotten, so keep them longer than any platform redelivers. Returns how many were deleted.
   */
  async prune(before: number): Promise<number> {
    const rows = await this.ctx.run((db) =>
      db
        .delete(this.t.inbox)
        .where(
          and(
            inArray(this.t.inbox.status, ["done", "rejected", "failed"]),
            lt(this.t.inbox.receivedAt, before),
          ),
        )
        .returning({ id: this.t.inbox.id }),
    );
    return rows.length;
  }
}
