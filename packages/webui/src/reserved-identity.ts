// User ids the chat page may not hand to a visitor: the ones the service's other surfaces run as on
// the same RunManager and memory. Memory, runs and pending approvals are keyed by user id alone, so
// a chat-page identity equal to the agent route's user (`anonymous`, conversation `default`) or to
// a gateway's name (conversations keyed by phone number, chat id, `repo:o/r:issue:12`) would read,
// write and clear those conversations and decide their suspended runs.
import { DEFAULT_USER_ID } from "@agentsvc/agent-routes";

/** The agent route's user, always; plus the ids the server names (each gateway's). */
export function reservedUserIds(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([DEFAULT_USER_ID, ...extra]);
}

/** The usernames among declared accounts that can never use the page (told once at start). */
export function reservedAccounts(
  users: readonly unknown[] | undefined,
  reserved: ReadonlySet<string>,
): string[] {
  return (users ?? [])
    .map((u) => (u as { username?: unknown } | null)?.username)
    .filter((name): name is string => typeof name === "string" && reserved.has(name));
}
