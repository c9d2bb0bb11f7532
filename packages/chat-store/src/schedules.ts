// Schedule ticks (store-schema step 10). A tick is claimed by inserting its row (unique on schedule +
// tick time) before its turn starts: of several instances exactly one insert succeeds. Then the
// tick's message is recorded in the inbox (`recorded`, with its id) and the turn runs like any
// message; the reply's outbox pieces say how it ended (`delivered`, `dead`, `failed`, `silent`).
import { and, asc, desc, eq, inArray, sql } from "./orm.js";
import type { StoreContext } from "./context.js";
import { requireId } from "./validate.js";

export type TickOutcome = "claimed" | "recorded" | "delivered" | "dead" | "failed" | "silent";

export interface TickRow {
  schedule: string;
  tickAt: number;
  claimedAt: number;
  instance: string;
  manual: boolean;
  inboxId: number | null;
  outcome: TickOutcome;
  error: string | null;
  finishedAt: number | null;
}

/** What became of a recorded tick's turn and reply, read from the inbox and the outbox. */
export interface TickDelivery {
  inboxStatus: string;
  pending: number;
  sent: number;
  dead: number;
  lastError: string | null;
  /** The text of the first reply piece: for a failed turn, the notice the chat was given. */
  firstText: string | null;
}

const OPEN: TickOutcome[] = ["claimed", "recorded"];

export class ScheduleTicks {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  /** Inserts the tick's row; false when it was already claimed (here or by another instance). */
  async claim(tick: {
    schedule: string;
    tickAt: number;
    instance: string;
    manual?: boolean;
  }): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .insert(this.t.scheduleTicks)
        .values({
          schedule: requireId(tick.schedule, "schedule"),
          tickAt: tick.tickAt,
          claimedAt: this.ctx.now(),
          instance: requireId(tick.instance, "instance"),
          manual: tick.manual ? 1 : 0,
          outcome: "claimed",
        })
        .onConflictDoNothing()
        .returning({ schedule: this.t.scheduleTicks.schedule }),
    );
    return rows.length > 0;
  }

  /** The tick's message is in the inbox (or was found there: the same dedup key). */
  async recorded(schedule: string, tickAt: number, inboxId: number | null): Promise<void> {
    const k = this.t.scheduleTicks;
    await this.ctx.run((db) =>
      db
        .update(k)
        .set({ outcome: "recorded", inboxId })
        .where(and(eq(k.schedule, schedule), eq(k.tickAt, tickAt), eq(k.outcome, "claimed"))),
    );
  }

  async finish(schedule: string, tickAt: number, outcome: TickOutcome, error?: string): Promise<void> {
    const k = this.t.scheduleTicks;
    await this.ctx.run((db) =>
      db
        .update(k)
        .set({ outcome, error: error ?? null, finishedAt: this.ctx.now() })
        .where(and(eq(k.schedule, schedule), eq(k.tickAt, tickAt))),
    );
  }

  /** Ticks not finished yet (claimed and not recorded, or recorded and still running or sending), oldest first. */
  async open(): Promise<TickRow[]> {
    const k = this.t.scheduleTicks;
    const rows = await this.ctx.run((db) =>
      db.select().from(k).where(inArray(k.outcome, OPEN)).orderBy(asc(k.tickAt)).limit(5_000),
    );
    return rows.map(toTick);
  }

  /** The newest tick of a schedule. */
  async last(schedule: string): Promise<TickRow | undefined> {
    const k = this.t.scheduleTicks;
    const rows = await this.ctx.run((db) =>
      db.select().from(k).where(eq(k.schedule, schedule)).orderBy(desc(k.tickAt)).limit(1),
    );
    return rows[0] && toTick(rows[0]);
  }

  /** A schedule's newest ticks, newest first. */
  async recent(schedule: string, limit = 50): Promise<TickRow[]> {
    const k = this.t.scheduleTicks;
    const rows = await this.ctx.run((db) =>
      db.select().from(k).where(eq(k.schedule, schedule)).orderBy(desc(k.tickAt)).limit(limit),
    );
    return rows.map(toTick);
  }

  /** The newest finished tick that ended in an error, for `schedules list`. */
  async lastError(schedule: string): Promise<TickRow | undefined> {
    const k = this.t.scheduleTicks;
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(k)
        .where(and(eq(k.schedule, schedule), inArray(k.outcome, ["dead", "failed"])))
        .orderBy(desc(k.tickAt))
        .limit(1),
    );
    return rows[0] && toTick(rows[0]);
  }

  /** The inbox id of a recorded message (a tick another instance, or a crashed run, recorded first). */
  async inboxIdOf(gateway: string, dedupKey: string): Promise<number | undefined> {
    const i = this.t.inbox;
    const rows = await this.ctx.run((db) =>
      db
        .select({ id: i.id })
        .from(i)
        .where(and(eq(i.gateway, gateway), eq(i.dedupKey, dedupKey))),
    );
    return rows[0] ? Number(rows[0].id) : undefined;
  }

  /** The inbox row and reply pieces of a recorded tick (pieces keyed `<gateway>:in<id>:...`). */
  async delivery(gateway: string, inboxId: number): Promise<TickDelivery | undefined> {
    const i = this.t.inbox;
    const o = this.t.outbox;
    const inbox = await this.ctx.run((db) =>
      db.select({ status: i.status }).from(i).where(eq(i.id, inboxId)),
    );
    if (!inbox[0]) return undefined;
    const prefix = `${gateway}:in${inboxId}:`;
    const pieces = await this.ctx.run((db) =>
      db
        .select({ status: o.status, lastError: o.lastError, kind: o.kind, payload: o.payload })
        .from(o)
        .where(and(eq(o.gateway, gateway), sql`substr(${o.idemKey}, 1, ${prefix.length}) = ${prefix}`))
        .orderBy(asc(o.id)),
    );
    const count = (s: string) => pieces.filter((p) => p.status === s).length;
    const dead = pieces.filter((p) => p.status === "dead");
    return {
      inboxStatus: inbox[0].status,
      pending: count("pending"),
      sent: count("sent"),
      dead: dead.length,
      lastError: dead[dead.length - 1]?.lastError ?? null,
      firstText: textOf(pieces.find((p) => p.kind === "text")?.payload),
    };
  }

  async setPaused(schedule: string, paused: boolean): Promise<void> {
    const s = this.t.scheduleState;
    const values = {
      schedule: requireId(schedule, "schedule"),
      paused: paused ? 1 : 0,
      updatedAt: this.ctx.now(),
    };
    await this.ctx.run((db) =>
      db
        .insert(s)
        .values(values)
        .onConflictDoUpdate({
          target: s.schedule,
          set: { paused: values.paused, updatedAt: values.updatedAt },
        }),
    );
  }

  /** Names of the schedules the operator paused. */
  async paused(): Promise<Set<string>> {
    const s = this.t.scheduleState;
    const rows = await this.ctx.run((db) =>
      db.select({ schedule: s.schedule }).from(s).where(eq(s.paused, 1)),
    );
    return new Set(rows.map((r) => r.schedule));
  }
}

function textOf(payload: string | undefined): string | null {
  if (payload === undefined) return null;
  try {
    const text = (JSON.parse(payload) as { text?: unknown }).text;
    return typeof text === "string" ? text : null;
  } catch {
    return null;
  }
}

function toTick(row: {
  schedule: string;
  tickAt: number;
  claimedAt: number;
  instance: string;
  manual: number;
  inboxId: number | null;
  outcome: TickOutcome;
  error: string | null;
  finishedAt: number | null;
}): TickRow {
  return {
    ...row,
    tickAt: Number(row.tickAt),
    claimedAt: Number(row.claimedAt),
    manual: Number(row.manual) === 1,
    inboxId: row.inboxId === null ? null : Number(row.inboxId),
    finishedAt: row.finishedAt === null ? null : Number(row.finishedAt),
  };
}
