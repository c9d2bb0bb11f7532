import type { ChatDb } from "@agentsvc/chat-store";
import type { WebuiExposure } from "@agentsvc/config-schema";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";

export interface AccountSeeding {
  /** Mounted before the chat API: each of its requests waits until the accounts are in the store. */
  gate: MiddlewareHandler;
  /** Resolves once seeding ended either way (shutdown waits for it before closing the store). */
  settled: Promise<void>;
}

/**
 * A chat page's accounts seeded beside start-up, not before listen: each password's PBKDF2 check
 * or hash (600,000 rounds) would otherwise hold back the first answer of every route. Only the
 * page's API needs the accounts, so only it waits; a sign-in that arrives first is answered once
 * seeding ends. A failed seeding (the store refused the write) closes the API with a 503 rather
 * than serving it without its accounts.
 */
export function seedBesideStart(
  db: ChatDb,
  users: NonNullable<WebuiExposure["users"]>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): AccountSeeding {
  let failed = false;
  const settled = db.seedAccounts(users, env, logger).then(
    () => undefined,
    (error: unknown) => {
      failed = true;
      logger.error({ err: error }, "could not seed the chat page's accounts; its API answers 503");
    },
  );
  const gate: MiddlewareHandler = async (c, next) => {
    await settled;
    if (failed) {
      return c.json(
        {
          success: false,
          error: { code: "accounts_unavailable", message: "the chat page's accounts could not be set up" },
        },
        503,
      );
    }
    await next();
  };
  return { gate, settled };
}
