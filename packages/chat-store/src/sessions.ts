// Server-side sign-in this.t.sessions. The browser holds a random 32-byte id; the table holds only its
// SHA-256, so a leaked database file does not hand out live this.t.sessions.
import { createHash, randomBytes } from "node:crypto";
import { eq, lte } from "./orm.js";
import type { StoreContext } from "./context.js";
import type { StoreHealthView } from "./backend.js";
import { first } from "./rows.js";
import { requireId } from "./validate.js";
import type { SQL } from "drizzle-orm";

export const DEFAULT_SESSION_TIMEOUT_MS = 60 * 60 * 1000;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/** A use refreshes the stored last-seen time at most this often (one fsynced write per minute, not per request). */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

export interface SessionRecord {
  /** The secret cookie value; only returned by create/rotate/get, never stored in clear. */
  id: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  /** When it lapses unless used again (sliding). */
  expiresAt: number;
}

function idHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

export class Sessions {
  private get t() {
    return this.ctx.tables;
  }

  constructor(
    private readonly ctx: StoreContext,
    readonly timeoutMs: number = DEFAULT_SESSION_TIMEOUT_MS,
    private readonly health?: StoreHealthView,
  ) {}

  async create(userId: string): Promise<SessionRecord> {
    requireId(userId, "userId");
    const id = randomBytes(32).toString("base64url");
    const now = this.ctx.now();
    await this.ctx.run((db) =>
      db.insert(this.t.sessions).values({ idHash: idHash(id), userId, createdAt: now, lastSeenAt: now }),
    );
    return { id, userId, createdAt: now, lastSeenAt: now, expiresAt: now + this.timeoutMs };
  }

  /**
   * The live session for `id`, touched (the 60-minute window slides on every use, stored with
   * one-minute granularity); undefined when unknown or idle past the timeout (deleted on sight).
   */
  async get(id: string): Promise<SessionRecord | undefined> {
    if (typeof id !== "string" || !SESSION_ID.test(id)) return undefined;
    const hash = idHash(id);
    const now = this.ctx.now();
    const row = first(
      await this.ctx.run((db) => db.select().from(this.t.sessions).where(eq(this.t.sessions.idHash, hash))),
    );
    if (!row) return undefined;
    if (now - row.lastSeenAt >= this.timeoutMs) {
      await this.ctx.run((db) => db.delete(this.t.sessions).where(eq(this.t.sessions.idHash, hash)));
      return undefined;
    }
    let lastSeenAt = row.lastSeenAt;
    const due = now - row.lastSeenAt >= Math.min(SESSION_TOUCH_INTERVAL_MS, this.timeoutMs / 2);
    // The touch is only freshness: skipped (not waited for) while another process holds the write lock.
    if (due && this.health?.probe("write") !== false) {
      await this.ctx.run((db) =>
        db.update(this.t.sessions).set({ lastSeenAt: now }).where(eq(this.t.sessions.idHash, hash)),
      );
      lastSeenAt = now;
    }
    return {
      id,
      userId: row.userId,
      createdAt: row.createdAt,
      lastSeenAt,
      expiresAt: lastSeenAt + this.timeoutMs,
    };
  }

  /** At sign-in: the old session (if any) is deleted and a fresh id issued (no session fixation). */
  rotate(oldId: string | undefined, userId: string): Promise<SessionRecord> {
    return this.ctx.transaction(async () => {
      if (oldId !== undefined) await this.delete(oldId);
      return this.create(userId);
    });
  }

  async delete(id: string): Promise<boolean> {
    if (typeof id !== "string" || !SESSION_ID.test(id)) return false;
    return (await this.deleteWhere(eq(this.t.sessions.idHash, idHash(id)))) > 0;
  }

  /** Ends every session of a user (password change, deactivation). Returns how many. */
  deleteForUser(userId: string): Promise<number> {
    return this.deleteWhere(eq(this.t.sessions.userId, userId));
  }

  /** Housekeeping: removes sessions idle past the timeout. Returns how many. */
  purgeExpired(): Promise<number> {
    const cutoff = this.ctx.now() - this.timeoutMs;
    return this.deleteWhere(lte(this.t.sessions.lastSeenAt, cutoff));
  }

  private async deleteWhere(where: SQL): Promise<number> {
    const rows = await this.ctx.run((db) =>
      db.delete(this.t.sessions).where(where).returning({ id: this.t.sessions.idHash }),
    );
    return rows.length;
  }
}
