// Boot-time account seeder: config `users` -> accounts table. Runs after migrations, before the
// sign-in gate. Config is the source of truth for who may sign in; rows are never deleted.
import { eq, inArray, not } from "./orm.js";
import type { Accounts } from "./accounts.js";
import type { StoreContext } from "./context.js";
import { ChatDbError } from "./errors.js";
import { DEFAULT_PBKDF2_ITERATIONS, hashPassword, isPasswordHash, verifyPassword } from "./password.js";
import { first } from "./rows.js";

/** One element of the entry's `users` list (validated by config-schema; re-checked here). */
export interface AccountConfig {
  username: string;
  displayName?: string;
  passwordEnvVar?: string;
  passwordHash?: string;
}

export interface AuthLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface SeedReport {
  created: string[];
  /** Password changed (re-hashed from the env var, or a new passwordHash). */
  passwordChanged: string[];
  reactivated: string[];
  deactivated: string[];
  /** passwordEnvVar named an unset (or empty) variable. */
  skipped: string[];
  unchanged: string[];
}

type Plan = { username: string; displayName: string; hash: string; changed: boolean };

function configError(
  index: number,
  username: unknown,
  key: string,
  expected: string,
  got: string,
): ChatDbError {
  const who = typeof username === "string" && username ? ` ("${username}")` : "";
  return new ChatDbError(
    "invalid_account",
    `users[${index}]${who}.${key}: expected ${expected} (got ${got})`,
  );
}

export async function seedAccounts(
  ctx: StoreContext,
  store: Accounts,
  users: readonly AccountConfig[],
  env: Readonly<Record<string, string | undefined>>,
  logger: AuthLogger,
  options: { iterations?: number } = {},
): Promise<SeedReport> {
  const iterations = options.iterations ?? DEFAULT_PBKDF2_ITERATIONS;
  const report: SeedReport = {
    created: [],
    passwordChanged: [],
    reactivated: [],
    deactivated: [],
    skipped: [],
    unchanged: [],
  };
  const seen = new Set<string>();
  const plans: Plan[] = [];

  // Validate everything before writing anything: a bad entry must not half-apply the config.
  users.forEach((user, i) => {
    if (typeof user.username !== "string" || user.username.trim() === "") {
      throw configError(i, user.username, "username", "a non-empty string", JSON.stringify(user.username));
    }
    if (seen.has(user.username)) {
      throw configError(i, user.username, "username", "a unique username", "a duplicate");
    }
    seen.add(user.username);
    const hasEnv = user.passwordEnvVar !== undefined;
    const hasHash = user.passwordHash !== undefined;
    if (hasEnv === hasHash) {
      throw configError(
        i,
        user.username,
        "passwordEnvVar",
        "exactly one of passwordEnvVar or passwordHash",
        hasEnv ? "both" : "neither",
      );
    }
    if (hasHash && !isPasswordHash(user.passwordHash!)) {
      throw configError(
        i,
        user.username,
        "passwordHash",
        '"pbkdf2$<iterations>$<salt>$<digest>"',
        "another format",
      );
    }
  });

  // Each account's PBKDF2 check or hash (600,000 rounds, a crypto thread each) runs beside the
  // others': start waits for the slowest one, not their sum. Results are taken in config order.
  const outcomes = await Promise.all(
    users.map(async (user): Promise<Plan | { skipped: string; envVar: string; unset: boolean }> => {
      const stored = await store.storedHash(user.username);
      const displayName = user.displayName ?? user.username;
      if (user.passwordHash !== undefined) {
        return {
          username: user.username,
          displayName,
          hash: user.passwordHash,
          changed: stored !== undefined && stored !== user.passwordHash,
        };
      }
      const envVar = user.passwordEnvVar!;
      const password = env[envVar];
      if (password === undefined || password === "") {
        return { skipped: user.username, envVar, unset: password === undefined };
      }
      // Re-hash only when the configured password no longer matches the stored hash.
      if (stored !== undefined && (await verifyPassword(password, stored))) {
        return { username: user.username, displayName, hash: stored, changed: false };
      }
      return {
        username: user.username,
        displayName,
        hash: await hashPassword(password, { iterations }),
        changed: stored !== undefined,
      };
    }),
  );
  for (const outcome of outcomes) {
    if (!("skipped" in outcome)) {
      plans.push(outcome);
      continue;
    }
    const { skipped: username, envVar, unset } = outcome;
    report.skipped.push(username);
    logger.warn(
      { username, passwordEnvVar: envVar },
      `account "${username}" skipped: environment variable ${envVar} is ${unset ? "not set" : "empty"}; sign-in refused until it is set`,
    );
  }

  const now = ctx.now();
  await ctx.transaction(async () => {
    const rowOf = async (username: string) =>
      first(
        await ctx.run((db) =>
          db.select().from(ctx.tables.accounts).where(eq(ctx.tables.accounts.username, username)),
        ),
      );
    for (const plan of plans) {
      let row = await rowOf(plan.username);
      if (!row) {
        // Instances of one cluster boot together and each seeds the same config: the one whose
        // insert loses the race finds the winner's row (same password, another salt) and keeps it.
        const inserted = await ctx.run((db) =>
          db
            .insert(ctx.tables.accounts)
            .values({
              username: plan.username,
              displayName: plan.displayName,
              passwordHash: plan.hash,
              active: true,
              createdAt: now,
              updatedAt: now,
            })
            .onConflictDoNothing({ target: ctx.tables.accounts.username })
            .returning({ username: ctx.tables.accounts.username }),
        );
        if (inserted.length > 0) {
          report.created.push(plan.username);
          continue;
        }
        row = await rowOf(plan.username);
        if (!row)
          throw new ChatDbError("invalid_account", `account "${plan.username}" vanished while seeding`);
        if (!plan.changed) plan.hash = row.passwordHash;
      }
      const changed = plan.changed || row.passwordHash !== plan.hash;
      if (changed || !row.active || row.displayName !== plan.displayName) {
        await ctx.run((db) =>
          db
            .update(ctx.tables.accounts)
            .set({
              displayName: plan.displayName,
              passwordHash: plan.hash,
              active: true,
              deactivatedAt: null,
              updatedAt: now,
            })
            .where(eq(ctx.tables.accounts.username, plan.username)),
        );
      }
      if (changed) {
        report.passwordChanged.push(plan.username);
        // A changed password ends every existing session of the account.
        await ctx.run((db) =>
          db.delete(ctx.tables.sessions).where(eq(ctx.tables.sessions.userId, plan.username)),
        );
      }
      if (!row.active) report.reactivated.push(plan.username);
      if (!changed && row.active) report.unchanged.push(plan.username);
    }
    // Everyone active but not (usably) configured is deactivated: row and conversations kept.
    const keep = plans.map((p) => p.username);
    const gone = await ctx.run((db) =>
      db
        .select({ username: ctx.tables.accounts.username, active: ctx.tables.accounts.active })
        .from(ctx.tables.accounts)
        .where(keep.length ? not(inArray(ctx.tables.accounts.username, keep)) : undefined),
    );
    for (const { username, active } of gone) {
      if (!active) continue;
      await ctx.run((db) =>
        db
          .update(ctx.tables.accounts)
          .set({ active: false, deactivatedAt: now, updatedAt: now })
          .where(eq(ctx.tables.accounts.username, username)),
      );
      await ctx.run((db) => db.delete(ctx.tables.sessions).where(eq(ctx.tables.sessions.userId, username)));
      report.deactivated.push(username);
    }
  });

  if (
    report.created.length ||
    report.passwordChanged.length ||
    report.deactivated.length ||
    report.reactivated.length
  ) {
    logger.info(
      {
        created: report.created,
        passwordChanged: report.passwordChanged,
        deactivated: report.deactivated,
        reactivated: report.reactivated,
      },
      "accounts seeded from config",
    );
  }
  return report;
}
