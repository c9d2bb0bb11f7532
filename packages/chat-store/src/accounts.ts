import { eq } from "drizzle-orm";
import type { StoreContext } from "./context.js";
import { hashPassword, verifyPassword } from "./password.js";
import { accounts } from "./schema.js";

/** A sign-in account as other packages see it (never the hash). */
export interface AccountRecord {
  /** Also the account's `userId` everywhere else in the store. */
  username: string;
  displayName: string;
  active: boolean;
  createdAt: number;
  updatedAt: number;
  deactivatedAt: number | null;
}

function publicRecord(row: typeof accounts.$inferSelect): AccountRecord {
  const { passwordHash: _hash, ...rest } = row;
  return rest;
}

export class Accounts {
  // A hash of a random password, verified against when the username is unknown or inactive, so
  // that sign-in takes the same time whether or not the account exists.
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly ctx: StoreContext) {}

  get(username: string): AccountRecord | undefined {
    const row = this.ctx.db.select().from(accounts).where(eq(accounts.username, username)).get();
    return row && publicRecord(row);
  }

  list(): AccountRecord[] {
    return this.ctx.db.select().from(accounts).orderBy(accounts.username).all().map(publicRecord);
  }

  /**
   * The account when `username` is active and `password` matches; undefined otherwise. Unknown and
   * deactivated users still cost one PBKDF2 run.
   */
  async verifyLogin(username: string, password: string): Promise<AccountRecord | undefined> {
    const row = this.ctx.db.select().from(accounts).where(eq(accounts.username, username)).get();
    if (!row?.active) {
      this.dummyHash ??= hashPassword(`dummy:${Math.random()}`);
      await verifyPassword(password, await this.dummyHash);
      return undefined;
    }
    return (await verifyPassword(password, row.passwordHash)) ? publicRecord(row) : undefined;
  }

  /** @internal for the seeder */
  storedHash(username: string): string | undefined {
    return this.ctx.db
      .select({ hash: accounts.passwordHash })
      .from(accounts)
      .where(eq(accounts.username, username))
      .get()?.hash;
  }
}
