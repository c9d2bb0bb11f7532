// User ids the chat page may not hand to a visitor: the ones the service's other surfaces run as on
// the same RunManager and memory. Memory, runs and pending approvals are keyed by user id alone, so
// a chat-page identity equal to the agent route's user (`anonymous`, conversation `default`), to a
// gateway's (its type, or a channel adapter's entry name; conversations keyed by phone number, chat
// id, `repo:o/r:issue:12`) or to an open entry's workspace (`shared`, `shared:<entry>`) would read,
// write and clear those conversations and decide their suspended runs. config-schema refuses such
// names for declared accounts; an operator's `resolveIdentity` (a single sign-on, where people pick
// their own login) is checked here.
import { DEFAULT_USER_ID } from "@agentsvc/agent-routes";
import { GATEWAY_TYPES } from "@agentsvc/config-schema";
import { SHARED_USER_ID } from "./identity.js";

/**
 * Whether `userId` is another surface's: the built-in ones, plus what the server names (`extra`).
 * `own` is this entry's open workspace (`sharedUserIdOf(entry)`): the page's own user, never refused.
 */
export function reservedUserIds(own: string, extra: readonly string[] = []): (userId: string) => boolean {
  const names = new Set<string>([DEFAULT_USER_ID, SHARED_USER_ID, ...GATEWAY_TYPES, ...extra]);
  return (userId) => userId !== own && (names.has(userId) || userId.startsWith(`${SHARED_USER_ID}:`));
}

/** The usernames among declared accounts that can never use the page (told once at start). */
export function reservedAccounts(
  users: readonly unknown[] | undefined,
  reserved: (userId: string) => boolean,
): string[] {
  return (users ?? [])
    .map((u) => (u as { username?: unknown } | null)?.username)
    .filter((name): name is string => typeof name === "string" && reserved(name));
}
