// The outbox sender's role fence (several instances over PostgreSQL, #45.3). A sender sends for the
// outbox roles it leads (`outbox:<i>`, outbox-shares.ts), each a lock of its instance's cluster link.
// A link whose connection is gone without it noticing yet (the server ended the session; a health
// check notices in 10-20 s) leaves this instance believing it leads while another instance holds
// the roles, and its pool still answers: its sender's reads would find the pieces the new holder
// sends too. So the due read names the roles' locks and the session that must hold them, and the
// store refuses the read (`role_not_held`) when that session does not hold them all.
import type { Coordination, HeldLock } from "./coordination.js";

/**
 * What the due read checks: the session that must hold the locks (pid, incarnation: see HeldLock),
 * and their keys (decimal).
 */
export interface RoleFence {
  pid: number;
  keys: string[];
  incarnation: string;
}

/** The code of a due read refused for want of a role (the store's error, or this file's). */
const ROLE_NOT_HELD = "role_not_held";

/**
 * The fence of `roles` for each due read, or undefined when the coordination cannot name role
 * locks (one instance, or a coordination without them). Reading it throws when this instance does
 * not count a role as held any more (its loss is being handled).
 */
export function roleFence(coordination: Coordination, roles: string[]): (() => RoleFence) | undefined {
  if (!coordination.roleLock || roles.length === 0) return undefined;
  return () => {
    const locks = roles.map((role) => coordination.roleLock?.(role));
    const first = locks[0];
    if (!first || locks.some((lock) => lock?.incarnation !== first.incarnation))
      throw Object.assign(new Error("this instance no longer holds its outbox roles"), {
        code: ROLE_NOT_HELD,
      });
    return {
      pid: first.pid,
      keys: locks.map((lock) => (lock as HeldLock).key),
      incarnation: first.incarnation,
    };
  };
}

/** True when a due read was refused for want of a role (here or by the store). */
export function roleRefused(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === ROLE_NOT_HELD) return true;
  return false;
}

/**
 * A sender's due reads refused for want of a role: another instance holds its outbox roles and its
 * link has not noticed yet. Not its role now: it reads nothing more (before, it retried every
 * baseDelayMs until the link noticed, and `hasDue` threw), passes wakes on and has nothing due,
 * until its roles are given again (`given`: the sender's `restrict` once the link noticed, or a start).
 */
export class RefusedRoles {
  refused = false;
  /** Counts `given` calls: a refusal of a read begun before the last one is stale. */
  #given = 0;

  given(): void {
    this.refused = false;
    this.#given += 1;
  }

  /** `read`'s rows; none once refused (`onRefused` told of the refusal that set it). */
  async read<T>(read: () => Promise<T[]>, onRefused: (err: unknown) => void): Promise<T[]> {
    if (this.refused) return [];
    const given = this.#given;
    try {
      return await read();
    } catch (err) {
      if (!roleRefused(err)) throw err;
      // Roles given again while the read ran: the next read checks the new ones.
      if (given !== this.#given) return [];
      this.refused = true;
      onRefused(err);
      return [];
    }
  }
}
