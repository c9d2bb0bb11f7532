// The lock of a role this instance leads (Leadership, `agentsvc:leader:<name>`) as a statement on
// another connection checks it in `pg_locks`: the link's backend pid and the lock's key. A sender
// that leads a role folds the check into the statement that reads its work, so an instance whose
// link went away unnoticed (the server ended its session, and another instance took the role)
// reads nothing to send while its own link still thinks it leads (#45.3).
import { advisoryKeyText, leaderLockName } from "./keys.js";
import type { InstanceLink } from "./link.js";

/**
 * The session holding the lock of role `name` and the lock's key (decimal), or undefined when this
 * link does not count it as held (or is down). A pid names one live session (see ThreadLocks.heldLock).
 */
export function roleLock(link: InstanceLink, name: string): { pid: number; key: string } | undefined {
  const lock = leaderLockName(name);
  const pid = link.backendPid;
  if (pid === undefined || !link.isHeld(lock)) return undefined;
  return { pid, key: advisoryKeyText(lock) };
}
