// Sender access tables (store-schema step 8): pairing codes handed to unknown senders, the senders
// the owner approved, and the fixed-window counters of rate limits. Shared by every instance of a
// PostgreSQL store, so an approval or a count made on one instance holds on all.
import { and, asc, desc, eq, gt, sql } from "./orm.js";
import type { StoreContext } from "./context.js";
import { requireId } from "./validate.js";

export interface PairingRecord {
  code: string;
  gateway: string;
  sender: string;
  thread: string;
  displayName: string | null;
  status: "pending" | "approved" | "denied";
  createdAt: number;
  expiresAt: number;
}

export interface ApprovedSender {
  gateway: string;
  sender: string;
  approvedAt: number;
  code: string | null;
}

export class SenderAccess {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  async isApproved(gateway: string, sender: string): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ sender: this.t.senderApprovals.sender })
        .from(this.t.senderApprovals)
        .where(and(eq(this.t.senderApprovals.gateway, gateway), eq(this.t.senderApprovals.sender, sender))),
    );
    return rows.length > 0;
  }

  /** The newest code of a sender that has not expired at `now` (any status). */
  async currentCode(gateway: string, sender: string, now: number): Promise<PairingRecord | undefined> {
    const p = this.t.senderPairings;
    const rows = await this.ctx.run((db) =>
      db
        .select()
        .from(p)
        .where(and(eq(p.gateway, gateway), eq(p.sender, sender), gt(p.expiresAt, now)))
        .orderBy(desc(p.createdAt))
        .limit(1),
    );
    return rows[0];
  }

  /** Inserts a pending code; false when the code is taken. */
  async addCode(record: Omit<PairingRecord, "status">): Promise<boolean> {
    const values = {
      ...record,
      code: requireId(record.code, "code"),
      gateway: requireId(record.gateway, "gateway"),
      sender: requireId(record.sender, "sender", 1024),
      thread: requireId(record.thread, "thread", 1024),
      status: "pending" as const,
    };
    const inserted = await this.ctx.run((db) =>
      db
        .insert(this.t.senderPairings)
        .values(values)
        .onConflictDoNothing()
        .returning({ code: this.t.senderPairings.code }),
    );
    return inserted.length > 0;
  }

  /**
   * Counts one message in the window `key`, in one statement: concurrent callers (on any
   * instance) each see their own count, and a window older than `windowMs` starts again at `now`.
   */
  async hit(key: string, windowMs: number, now: number): Promise<{ count: number; windowStart: number }> {
    const w = this.t.rateWindows;
    const expired = sql`${w.windowStart} + ${windowMs} <= ${now}`;
    const rows = await this.ctx.run((db) =>
      db
        .insert(w)
        .values({ key: requireId(key, "key", 2048), windowStart: now, count: 1 })
        .onConflictDoUpdate({
          target: w.key,
          set: {
            count: sql`CASE WHEN ${expired} THEN 1 ELSE ${w.count} + 1 END`,
            windowStart: sql`CASE WHEN ${expired} THEN ${now} ELSE ${w.windowStart} END`,
          },
        })
        .returning({ count: w.count, windowStart: w.windowStart }),
    );
    const row = rows[0]!;
    return { count: Number(row.count), windowStart: Number(row.windowStart) };
  }

  /** Pending codes not expired at `now`, oldest first. */
  async pendingCodes(now: number): Promise<PairingRecord[]> {
    const p = this.t.senderPairings;
    return this.ctx.run((db) =>
      db
        .select()
        .from(p)
        .where(and(eq(p.status, "pending"), gt(p.expiresAt, now)))
        .orderBy(asc(p.createdAt)),
    );
  }

  async approvedSenders(): Promise<ApprovedSender[]> {
    const a = this.t.senderApprovals;
    return this.ctx.run((db) => db.select().from(a).orderBy(asc(a.gateway), asc(a.approvedAt)));
  }

  /** pending (not expired) -> approved, with the sender approved in the same transaction. */
  approve(code: string, now: number): Promise<PairingRecord | undefined> {
    return this.ctx.transaction(async () => {
      const rec = await this.#decide(code, now, "approved");
      if (!rec) return undefined;
      await this.ctx.run((db) =>
        db
          .insert(this.t.senderApprovals)
          .values({ gateway: rec.gateway, sender: rec.sender, approvedAt: now, code: rec.code })
          .onConflictDoUpdate({
            target: [this.t.senderApprovals.gateway, this.t.senderApprovals.sender],
            set: { approvedAt: now, code: rec.code },
          }),
      );
      return rec;
    });
  }

  /** pending (not expired) -> denied. The sender gets no new code until this one expires. */
  deny(code: string, now: number): Promise<PairingRecord | undefined> {
    return this.ctx.transaction(() => this.#decide(code, now, "denied"));
  }

  async revoke(gateway: string, sender: string): Promise<boolean> {
    const a = this.t.senderApprovals;
    const rows = await this.ctx.run((db) =>
      db
        .delete(a)
        .where(and(eq(a.gateway, gateway), eq(a.sender, sender)))
        .returning({ sender: a.sender }),
    );
    return rows.length > 0;
  }

  async #decide(
    code: string,
    now: number,
    status: "approved" | "denied",
  ): Promise<PairingRecord | undefined> {
    const p = this.t.senderPairings;
    const rows = await this.ctx.run((db) =>
      db
        .update(p)
        .set({ status })
        .where(and(eq(p.code, code.trim().toUpperCase()), eq(p.status, "pending"), gt(p.expiresAt, now)))
        .returning(),
    );
    return rows[0];
  }
}
