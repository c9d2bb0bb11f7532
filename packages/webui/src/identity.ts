import type { ChatDb } from "@agentsvc/chat-store";
import type { Context } from "hono";
import { readSessionCookie } from "./cookies.js";
import type { Identity, IdentityResolver } from "./types.js";

/** The one workspace every visitor shares when the entry declares no `users`. */
export const SHARED_USER_ID = "shared";

/**
 * The shared workspace of one entry: `shared:<entryName>`. Two open entries on one store file must
 * not share a workspace — otherwise what was said behind one entry's API key could be read through
 * another entry without one.
 */
export function sharedUserIdOf(entry: { entryName?: string }): string {
  return entry.entryName ? `${SHARED_USER_ID}:${entry.entryName}` : SHARED_USER_ID;
}

/**
 * The built-in resolver, the only place identity is derived: without accounts everyone is the entry's
 * shared workspace user;
 * with accounts it is the signed-in account of a live session whose account is still active.
 */
export function defaultIdentityResolver(
  db: ChatDb,
  signInEnabled: boolean,
  sharedUserId: string = SHARED_USER_ID,
): IdentityResolver {
  return async (c: Context): Promise<Identity | null> => {
    if (!signInEnabled) return { userId: sharedUserId };
    const id = readSessionCookie(c);
    if (!id) return null;
    // get() slides the 60-minute idle timeout and drops an expired row.
    const session = await db.sessions.get(id);
    if (!session) return null;
    const account = await db.accounts.get(session.userId);
    // A deactivated account (removed from config) loses its sessions' power at once.
    if (!account || !account.active) return null;
    return { userId: account.username, displayName: account.displayName };
  };
}
