// The lock of a role this instance leads (Leadership, `agentsvc:leader:<name>`) as a statement on
// another connection checks it: the lock's key and the link session's incarnation (ThreadLocks.heldLock
// says how, and why that is "this session holds it"). A sender
// that leads a role folds the check into the statement that reads its work, so an instance whose
// link went away unnoticed (the server ended its session, and another instance took the role)
// reads nothing to send while its own link still thinks it leads (#45.3).
import type { SessionLock } from "./incarnation.js";
import { advisoryKeyText, leaderLockName } from "./keys.js";
import type { InstanceLink } from "./link.js";

/**
 * The session holding the lock of role `name` (its pid and incarnation) and the lock's key
 * (decimal), or undefined when this link does not count it as held (or is down).
 */
export function roleLock(link: InstanceLink, name: string): SessionLock | undefined {
  const lock = leaderLockName(name);
  const pid = link.backendPid;
  const incarnation = link.incarnation;
  if (pid === undefined || incarnation === undefined || !link.isHeld(lock)) return undefined;
  return { pid, key: advisoryKeyText(lock), incarnation };
}
