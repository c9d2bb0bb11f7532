import type { ChatDb } from "@agentsvc/chat-store";
import type { WebuiExposure } from "@agentsvc/config-schema";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";

export interface AccountSeeding {
  /** Mounted before the chat API: each of its requests waits until the accounts are in the store. */
  gate: MiddlewareHandler;
  /** Resolves once seeding ended either way, at once when it never started (shutdown waits for it before closing the store). */
  readonly settled: Promise<void>;
}

/**
 * A chat page's accounts seeded when its API is first asked, not at start: each password's PBKDF2
 * check or hash (600,000 rounds, ~90 ms of CPU) would otherwise take the CPU the service's first
 * answer needs, at every restart (#45). Only the page's API needs the accounts, so its first request
 * starts the seeding and every request waits for it; a sign-in that arrives first is answered once
 * seeding ends. A failed seeding (the store refused the write) closes the API with a 503 rather than
 * serving it without its accounts.
 */
export function seedAtFirstRequest(
  db: ChatDb,
  users: NonNullable<WebuiExposure["users"]>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): AccountSeeding {
  let failed = false;
  let seeding: Promise<void> | undefined;
  const seed = () =>
    (seeding ??= db.seedAccounts(users, env, logger).then(
      () => undefined,
      (error: unknown) => {
        failed = true;
        logger.error({ err: error }, "could not seed the chat page's accounts; its API answers 503");
      },
    ));
  const gate: MiddlewareHandler = async (c, next) => {
    await seed();
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
  return {
    gate,
    get settled() {
      return seeding ?? Promise.resolve();
    },
  };
}
