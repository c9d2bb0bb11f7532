import { and, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { preferences } from "./schema.js";
import { first } from "./rows.js";
import { requireId, toJson } from "./validate.js";

/** Per-user key/value settings; any JSON value, upsert on (userId, prefKey). */
export class Preferences {
  constructor(private readonly ctx: StoreContext) {}

  async getAll(userId: string): Promise<Record<string, unknown>> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ key: preferences.prefKey, value: preferences.value })
        .from(preferences)
        .where(eq(preferences.userId, userId))
        .orderBy(preferences.prefKey),
    );
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

  async get(userId: string, key: string): Promise<unknown> {
    const row = first(
      await this.ctx.run((db) =>
        db
          .select({ value: preferences.value })
          .from(preferences)
          .where(and(eq(preferences.userId, userId), eq(preferences.prefKey, key))),
      ),
    );
    return row === undefined ? undefined : JSON.parse(row.value);
  }

  async set(userId: string, key: string, value: unknown): Promise<void> {
    requireId(userId, "userId");
    requireId(key, "key", 200);
    const json = toJson(value, `preferences.${key}`);
    const now = this.ctx.now();
    await this.ctx.run((db) =>
      db
        .insert(preferences)
        .values({ userId, prefKey: key, value: json, updatedAt: now })
        .onConflictDoUpdate({
          target: [preferences.userId, preferences.prefKey],
          set: { value: json, updatedAt: now },
        }),
    );
  }

  /** False when the key was not set. */
  async delete(userId: string, key: string): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .delete(preferences)
        .where(and(eq(preferences.userId, userId), eq(preferences.prefKey, key)))
        .returning({ key: preferences.prefKey }),
    );
    return rows.length > 0;
  }
}
