// Sign-in throttle. Keys are chosen by the caller (`user:alice`, `addr:10.0.0.5`). An attempt is
// counted when it is *reserved*, before the password is checked, in one transaction — so a
// burst of parallel guesses cannot all pass a "not locked yet" check. Reaching `maxFailures`
// locks the key; each further lock in a row lasts twice as long (capped). A key starts over
// after `windowMs` with no failure and no lock.
import { eq, inArray } from "./orm.js";
import type { StoreContext } from "./context.js";
import { first, lockRow } from "./rows.js";
import type { loginThrottle } from "@agentsvc/store-schema/sqlite";

export interface ThrottleOptions {
  /** Failures that lock a key. Default 5. */
  maxFailures?: number;
  /** Quiet time after which a key's count starts over. Default 15 minutes. */
  windowMs?: number;
  /** Length of a key's first lock; each further lock doubles it. Default: windowMs. */
  lockMs?: number;
  /** Longest lock. Default 24 hours. */
  maxLockMs?: number;
  /** How long a successful sign-in makes its address a known one for that account. Default 30 days. */
  knownAddressMs?: number;
}

export interface ThrottleState {
  failures: number;
  locked: boolean;
  /** Milliseconds since the epoch; set while locked. */
  lockedUntil: number | null;
}

export type Reservation = { ok: true } | { ok: false; retryAfterMs: number };

type Row = typeof loginThrottle.$inferSelect;

const KNOWN = "known:";
/** A key with no attempt counted: `counted` starts it over, `state` reads it as no row. */
const BLANK = { failures: 0, windowStart: 0, lockedUntil: null };

export class Throttle {
  private get t() {
    return this.ctx.tables;
  }

  readonly maxFailures: number;
  readonly windowMs: number;
  readonly lockMs: number;
  readonly maxLockMs: number;
  readonly knownAddressMs: number;

  constructor(
    private readonly ctx: StoreContext,
    options: ThrottleOptions = {},
  ) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.lockMs = options.lockMs ?? this.windowMs;
    this.maxLockMs = Math.max(this.lockMs, options.maxLockMs ?? 24 * 60 * 60 * 1000);
    this.knownAddressMs = options.knownAddressMs ?? 30 * 24 * 60 * 60 * 1000;
  }

  /**
   * Counts one attempt on every key, unless one of them is locked (then nothing is counted and the
   * answer says how long to wait). The attempt stays counted as a failure until `succeeded`.
   */
  reserve(keys: readonly string[]): Promise<Reservation> {
    return this.ctx.transaction(async () => {
      const now = this.ctx.now();
      // Every key gets a row before any is locked: `FOR UPDATE` locks only rows that exist, so
      // simultaneous first attempts on a new key would each count from nothing (PostgreSQL).
      // A blank row counts as no row. Sorted, so two reservations wait in one order.
      if (keys.length === 0) return { ok: true } as const;
      await this.ctx.run((db) =>
        db
          .insert(this.t.loginThrottle)
          .values([...keys].sort().map((throttleKey) => ({ throttleKey, ...BLANK })))
          .onConflictDoNothing(),
      );
      const rows = await this.ctx.run((db) =>
        lockRow(db, this.t.loginThrottle, inArray(this.t.loginThrottle.throttleKey, [...keys]), this.ctx),
      );
      const byKey = new Map(rows.map((r) => [r.throttleKey, r]));
      const waits = rows.map((r) => (r.lockedUntil ?? 0) - now).filter((ms) => ms > 0);
      if (waits.length > 0) return { ok: false, retryAfterMs: Math.max(...waits) };
      for (const key of keys) {
        const next = this.counted(byKey.get(key), now);
        await this.upsert(key, next);
      }
      return { ok: true } as const;
    });
  }

  private upsert(key: string, values: Omit<Row, "throttleKey">): Promise<unknown> {
    return this.ctx.run((db) =>
      db
        .insert(this.t.loginThrottle)
        .values({ throttleKey: key, ...values })
        .onConflictDoUpdate({ target: this.t.loginThrottle.throttleKey, set: values }),
    );
  }

  /** A row after one more failure. `windowStart` holds the last failure's time. */
  private counted(row: Row | undefined, now: number): Omit<Row, "throttleKey"> {
    const quietSince = Math.max(row?.windowStart ?? 0, row?.lockedUntil ?? 0);
    const fresh = !row || now - quietSince >= this.windowMs;
    const failures = fresh ? 1 : row.failures + 1;
    const locks = Math.floor(failures / this.maxFailures);
    const lockedUntil =
      failures % this.maxFailures === 0
        ? now + Math.min(this.lockMs * 2 ** (locks - 1), this.maxLockMs)
        : fresh
          ? null
          : row.lockedUntil;
    return { failures, windowStart: now, lockedUntil };
  }

  /**
   * After a successful sign-in: `reset` keys start over (the account's), `undo` keys only take
   * back this attempt (the address's: signing in to one's own account must not wipe the count of
   * guesses made at others).
   */
  succeeded(reset: readonly string[], undo: readonly string[] = []): Promise<void> {
    return this.ctx.transaction(async () => {
      if (reset.length > 0)
        await this.ctx.run((db) =>
          db.delete(this.t.loginThrottle).where(inArray(this.t.loginThrottle.throttleKey, [...reset])),
        );
      for (const key of undo) {
        const row = first(
          await this.ctx.run((db) =>
            lockRow(db, this.t.loginThrottle, eq(this.t.loginThrottle.throttleKey, key), this.ctx),
          ),
        );
        if (row && row.failures > 0) {
          // Taking back the attempt that locked the key takes back its lock too.
          const lockedByIt = row.failures % this.maxFailures === 0;
          await this.ctx.run((db) =>
            db
              .update(this.t.loginThrottle)
              .set({ failures: row.failures - 1, ...(lockedByIt ? { lockedUntil: null } : {}) })
              .where(eq(this.t.loginThrottle.throttleKey, key)),
          );
        }
      }
    });
  }

  /** Remembers that `username` signed in from `address` (exempts it from that account's lock). */
  async markKnown(username: string, address: string): Promise<void> {
    await this.upsert(knownKey(username, address), {
      failures: 0,
      windowStart: this.ctx.now(),
      lockedUntil: null,
    });
  }

  /** True when `username` signed in successfully from `address` within `knownAddressMs`. */
  async isKnown(username: string, address: string): Promise<boolean> {
    const row = await this.row(knownKey(username, address));
    return row !== undefined && this.ctx.now() - row.windowStart < this.knownAddressMs;
  }

  async isLocked(key: string): Promise<boolean> {
    return (await this.state(key)).locked;
  }

  async state(key: string): Promise<ThrottleState> {
    const row = await this.row(key);
    const now = this.ctx.now();
    if (!row) return { failures: 0, locked: false, lockedUntil: null };
    const locked = row.lockedUntil !== null && now < row.lockedUntil;
    const quietSince = Math.max(row.windowStart, row.lockedUntil ?? 0);
    const counting = locked || now - quietSince < this.windowMs;
    return { failures: counting ? row.failures : 0, locked, lockedUntil: locked ? row.lockedUntil : null };
  }

  /** Forgets a key entirely. */
  async reset(key: string): Promise<void> {
    await this.ctx.run((db) =>
      db.delete(this.t.loginThrottle).where(eq(this.t.loginThrottle.throttleKey, key)),
    );
  }

  private async row(key: string): Promise<Row | undefined> {
    return first(
      await this.ctx.run((db) =>
        db.select().from(this.t.loginThrottle).where(eq(this.t.loginThrottle.throttleKey, key)),
      ),
    );
  }
}

function knownKey(username: string, address: string): string {
  return `${KNOWN}${username.toLowerCase()}\n${address}`;
}
