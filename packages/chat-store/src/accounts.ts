import { eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { randomUUID } from "node:crypto";
import { hashPassword, parsePasswordHash, verifyPassword } from "./password.js";
import { first } from "./rows.js";
import type { accounts } from "@agentsvc/store-schema/sqlite";
import { VerifyQueue } from "./verify-queue.js";

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
  private get t() {
    return this.ctx.tables;
  }

  private readonly queue = new VerifyQueue();
  // A hash of a random password at the accounts' own cost, checked once so that unknown names
  // have a timing sample before any real sign-in happened.
  private calibration: Promise<void> | undefined;
  private readonly verifyListeners = new Set<(username: string) => void>();

  constructor(private readonly ctx: StoreContext) {}

  /** Called as each PBKDF2 verification starts (diagnostics and tests). Returns an unsubscribe. */
  onVerify(listener: (username: string) => void): () => void {
    this.verifyListeners.add(listener);
    return () => this.verifyListeners.delete(listener);
  }

  private async verify(username: string, password: string, hash: string): Promise<boolean> {
    return this.queue.run(async () => {
      for (const listener of this.verifyListeners) listener(username);
      return verifyPassword(password, hash);
    });
  }

  async get(username: string): Promise<AccountRecord | undefined> {
    const row = await this.row(username);
    return row && publicRecord(row);
  }

  async list(): Promise<AccountRecord[]> {
    const rows = await this.ctx.run((db) =>
      db.select().from(this.t.accounts).orderBy(this.t.accounts.username),
    );
    return rows.map(publicRecord);
  }

  private async row(username: string) {
    return first(
      await this.ctx.run((db) =>
        db.select().from(this.t.accounts).where(eq(this.t.accounts.username, username)),
      ),
    );
  }

  /**
   * The account when `username` is active and `password` matches; undefined otherwise. Checks run
   * through a queue of two. Unknown and deactivated names take as long as a real check but run no
   * PBKDF2, so a flood of made-up names cannot delay anyone's real sign-in.
   */
  async verifyLogin(username: string, password: string): Promise<AccountRecord | undefined> {
    const row = await this.row(username);
    if (!row?.active) {
      this.calibration ??= this.calibrate(username);
      await this.calibration;
      await this.queue.imitate();
      return undefined;
    }
    return (await this.verify(username, password, row.passwordHash)) ? publicRecord(row) : undefined;
  }

  private async calibrate(username: string): Promise<void> {
    if (this.queue.hasSamples) return;
    const any = first(
      await this.ctx.run((db) =>
        db.select({ hash: this.t.accounts.passwordHash }).from(this.t.accounts).limit(1),
      ),
    )?.hash;
    const parsed = any ? parsePasswordHash(any) : undefined;
    const iterations = parsed && typeof parsed !== "string" ? parsed.iterations : undefined;
    const dummy = await hashPassword(`dummy:${randomUUID()}`, iterations ? { iterations } : {});
    await this.verify(username, "", dummy);
  }

  /** @internal for the seeder */
  async storedHash(username: string): Promise<string | undefined> {
    return (await this.row(username))?.passwordHash;
  }
}
