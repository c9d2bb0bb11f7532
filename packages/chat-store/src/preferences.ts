import { and, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { first } from "./rows.js";
import { requireId, toJson } from "./validate.js";

/** Per-user key/value settings; any JSON value, upsert on (userId, prefKey). */
export class Preferences {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  async getAll(userId: string): Promise<Record<string, unknown>> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ key: this.t.preferences.prefKey, value: this.t.preferences.value })
        .from(this.t.preferences)
        .where(eq(this.t.preferences.userId, userId))
        .orderBy(this.t.preferences.prefKey),
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
          .select({ value: this.t.preferences.value })
          .from(this.t.preferences)
          .where(and(eq(this.t.preferences.userId, userId), eq(this.t.preferences.prefKey, key))),
      ),
    );
    return row === undefined ? undefined : JSON.parse(row.value);
  }

  async set(userId: string, key: string, value: unknown): Promise<void> {
    requireId(userId, "userId");
    requireId(key, "key", 200);
    const json = toJson(value, `this.t.preferences.${key}`);
    const now = this.ctx.now();
    await this.ctx.run((db) =>
      db
        .insert(this.t.preferences)
        .values({ userId, prefKey: key, value: json, updatedAt: now })
        .onConflictDoUpdate({
          target: [this.t.preferences.userId, this.t.preferences.prefKey],
          set: { value: json, updatedAt: now },
        }),
    );
  }

  /** False when the key was not set. */
  async delete(userId: string, key: string): Promise<boolean> {
    const rows = await this.ctx.run((db) =>
      db
        .delete(this.t.preferences)
        .where(and(eq(this.t.preferences.userId, userId), eq(this.t.preferences.prefKey, key)))
        .returning({ key: this.t.preferences.prefKey }),
    );
    return rows.length > 0;
  }
}
