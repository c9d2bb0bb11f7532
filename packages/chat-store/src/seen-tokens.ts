// Tokens that may be used once until they expire (a signed decision's signature, a platform's
// delivery id kept apart from the inbox). `claim` is atomic and survives restarts.
import { and, eq, lt } from "./orm.js";
import type { StoreContext } from "./context.js";
import { requireId } from "./validate.js";

export type ClaimResult = { claimed: true } | { claimed: false; value: string };

export class SeenTokens {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  /**
   * Records `token` under `scope` with `value` until `expiresAt` (ms epoch). When it is already
   * recorded (and not expired) nothing changes and the first value is returned.
   */
  claim(scope: string, token: string, value: string, expiresAt: number): Promise<ClaimResult> {
    const s = requireId(scope, "scope");
    const t = requireId(token, "token", 1024);
    const now = this.ctx.now();
    return this.ctx.transaction(async () => {
      await this.ctx.run((db) =>
        db
          .delete(this.t.seenTokens)
          .where(
            and(
              eq(this.t.seenTokens.scope, s),
              eq(this.t.seenTokens.token, t),
              lt(this.t.seenTokens.expiresAt, now),
            ),
          ),
      );
      const inserted = await this.ctx.run((db) =>
        db
          .insert(this.t.seenTokens)
          .values({ scope: s, token: t, value, expiresAt })
          .onConflictDoNothing()
          .returning({ value: this.t.seenTokens.value }),
      );
      if (inserted.length > 0) return { claimed: true } as const;
      const existing = await this.ctx.run((db) =>
        db
          .select({ value: this.t.seenTokens.value })
          .from(this.t.seenTokens)
          .where(and(eq(this.t.seenTokens.scope, s), eq(this.t.seenTokens.token, t))),
      );
      return { claimed: false, value: existing[0]?.value ?? "" } as const;
    });
  }

  /** Housekeeping: forgets expired tokens. */
  async prune(now = this.ctx.now()): Promise<number> {
    const rows = await this.ctx.run((db) =>
      db
        .delete(this.t.seenTokens)
        .where(lt(this.t.seenTokens.expiresAt, now))
        .returning({ token: this.t.seenTokens.token }),
    );
    return rows.length;
  }
}
