import type { ChatDb } from "@agentsvc/chat-store";
import { Hono } from "hono";
import type { Context } from "hono";
import type { Logger } from "pino";
import { readJsonObject } from "../body.js";
import {
  type CookieSettings,
  clearSessionCookie,
  readSessionCookie,
  writeSessionCookie,
} from "../cookies.js";
import { fail } from "../errors.js";
import { requiredString } from "../fields.js";
import type { HonoEnv, IdentityResolver } from "../types.js";

export interface AuthRouteDeps {
  db: ChatDb;
  signInEnabled: boolean;
  /** Whether `/auth/me` reports the resolved identity (sign-in on, or an operator's own resolver). */
  reportUser: boolean;
  resolveIdentity: IdentityResolver;
  cookie: CookieSettings;
  clientAddress: (c: Context) => string;
  logger: Logger;
}

/** `/auth/login`, `/auth/logout`, `/auth/me`. None of them needs a session. */
export function authRoutes(deps: AuthRouteDeps): Hono<HonoEnv> {
  const { db, cookie, logger } = deps;
  const app = new Hono<HonoEnv>();

  app.post("/auth/login", async (c) => {
    const where = "POST /auth/login";
    const body = await readJsonObject(c);
    const username = requiredString(where, body, "username", { max: 200, nonBlank: true });
    const password = requiredString(where, body, "password", { max: 1024 });
    if (!deps.signInEnabled) {
      return fail(c, 404, "not_found", "sign-in is not enabled: this entry declares no users");
    }
    const address = deps.clientAddress(c);
    const name = username.toLowerCase();
    const userKey = `user:${name}`;
    const addrKey = `addr:${address}`;
    // Counted before the password is checked (see the README's lockout policy). An address this
    // account signed in from before is not held by the account's lock, only by its own.
    const keys = (await db.throttle.isKnown(name, address)) ? [addrKey] : [userKey, addrKey];
    const reserved = await db.throttle.reserve(keys);
    if (!reserved.ok) {
      logger.warn({ username, address }, "sign-in refused: too many failed attempts");
      c.header("Retry-After", String(Math.max(1, Math.ceil(reserved.retryAfterMs / 1000))));
      return fail(c, 429, "too_many_attempts", "too many failed sign-in attempts; try again later");
    }
    const account = await db.accounts.verifyLogin(username, password);
    if (!account) {
      logger.warn({ username, address }, "sign-in failed");
      return fail(c, 401, "invalid_credentials", "wrong username or password");
    }
    await db.throttle.succeeded([userKey], [addrKey]);
    await db.throttle.markKnown(name, address);
    // Rotation: whatever session the browser had is dropped; the signed-in one gets a fresh id.
    const session = await db.sessions.rotate(readSessionCookie(c), account.username);
    writeSessionCookie(c, session.id, cookie);
    logger.info({ username: account.username, address }, "signed in");
    return c.json({ success: true, user: { username: account.username, displayName: account.displayName } });
  });

  app.post("/auth/logout", async (c) => {
    await readJsonObject(c);
    const id = readSessionCookie(c);
    if (id) await db.sessions.delete(id);
    clearSessionCookie(c, cookie);
    return c.json({ success: true });
  });

  app.get("/auth/me", async (c) => {
    const identity = await deps.resolveIdentity(c);
    // The shared workspace is nobody in particular: `user` stays null unless someone is signed in
    // (or an operator's resolver names a principal).
    const user =
      identity && deps.reportUser
        ? { username: identity.userId, displayName: identity.displayName ?? identity.userId }
        : null;
    return c.json({ success: true, signInRequired: deps.signInEnabled, user });
  });

  return app;
}
