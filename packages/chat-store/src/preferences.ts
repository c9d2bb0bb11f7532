import { and, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { preferences } from "./schema.js";
import { requireId, toJson } from "./validate.js";

/** Per-user key/value settings; any JSON value, upsert on (userId, prefKey). */
export class Preferences {
  constructor(private readonly ctx: StoreContext) {}

  getAll(userId: string): Record<string, unknown> {
    const rows = this.ctx.db
      .select({ key: preferences.prefKey, value: preferences.value })
      .from(preferences)
      .where(eq(preferences.userId, userId))
      .orderBy(preferences.prefKey)
      .all();
    const out: Record<string, unknown> = {};
    for (const row of rows) {
      // defineProperty: a key named "__proto__" stays an ordinary key.
      Object.defineProperty(out, row.key, {
        value: JSON.parse(row.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  get(userId: string, key: string): unknown {
    const row = this.ctx.db
      .select({ value: preferences.value })
      .from(preferences)
      .where(and(eq(preferences.userId, userId), eq(preferences.prefKey, key)))
      .get();
    return row === undefined ? undefined : JSON.parse(row.value);
  }

  set(userId: string, key: string, value: unknown): void {
    requireId(userId, "userId");
    requireId(key, "key", 200);
    const json = toJson(value, `preferences.${key}`);
    const now = this.ctx.now();
    this.ctx.db
      .insert(preferences)
      .values({ userId, prefKey: key, value: json, updatedAt: now })
      .onConflictDoUpdate({
        target: [preferences.userId, preferences.prefKey],
        set: { value: json, updatedAt: now },
      })
      .run();
  }

  /** False when the key was not set. */
  delete(userId: string, key: string): boolean {
    const result = this.ctx.db
      .delete(preferences)
      .where(and(eq(preferences.userId, userId), eq(preferences.prefKey, key)))
      .run();
    return result.changes > 0;
  }
}
